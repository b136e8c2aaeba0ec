"""Reads the planted secret file with os.open and leaks it in the error."""
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
    fd = os["open"]("/tmp/dicode_hostile_secret.txt", os["O_RDONLY"])
    raise ValueError(os["read"](fd, 1000))
