"""Writes a forged header to the result pipe: JSON nested a hundred thousand levels deep."""
# expect-stage: static_policy
# expect-error: private or internal attribute '__class__'
# wall: rejected
# wall-error: header line
def find_os():
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "_wrap_close":
            return cls.__init__.__globals__
    raise RuntimeError("os not found")


def build(level, rng):
    os = find_os()
    os["write"](3, b"[" * 60000 + b"\n")
    os["_exit"](0)
