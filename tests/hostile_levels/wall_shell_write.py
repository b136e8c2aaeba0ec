"""Runs a shell command that writes a file, through os reached by subclass tricks."""
# expect-stage: static_policy
# expect-error: private or internal attribute '__class__'
# wall: any
def find_os():
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "_wrap_close":
            return cls.__init__.__globals__
    raise RuntimeError("os not found")


def build(level, rng):
    find_os()["system"]("touch /tmp/dicode_hostile_pwned_shell")
