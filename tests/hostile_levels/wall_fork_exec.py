"""Forks and execs a shell that writes a marker file and connects to the test's socket."""
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
    command = "touch /tmp/dicode_hostile_pwned_exec; echo x > /dev/tcp/127.0.0.1/47613"
    if os["fork"]() == 0:
        os["execv"]("/bin/bash", ["bash", "-c", command])
    os["execv"]("/bin/sh", ["sh", "-c", command])
