"""Starts a shell with posix_spawn (no fork/exec names in sight)."""
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
    os["posix_spawn"]("/bin/sh", ["sh", "-c", "touch /tmp/dicode_hostile_pwned_spawn"], {})
