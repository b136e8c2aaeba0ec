"""Reads its own and its parent's environment through /proc and leaks them in the error."""
# expect-stage: static_policy
# expect-error: private or internal attribute '__class__'
# wall: rejected
def find_os():
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "_wrap_close":
            return cls.__init__.__globals__
    raise RuntimeError("os not found")


def build(level, rng):
    os = find_os()
    found = []
    for path in ("/proc/self/environ", f"/proc/{os['getppid']()}/environ", "/proc/1/environ"):
        fd = os["open"](path, os["O_RDONLY"])
        found.append(os["read"](fd, 8000))
    raise ValueError(repr(found))
