"""Connects to the test's socket with the socket module imported through real built-ins."""
# expect-stage: static_policy
# expect-error: private or internal attribute '__class__'
# wall: rejected
def find_os():
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "_wrap_close":
            return cls.__init__.__globals__
    raise RuntimeError("os not found")


def build(level, rng):
    real_import = find_os()["__builtins__"]["__import__"]
    socket = real_import("socket")
    socket.create_connection(("127.0.0.1", 47613), timeout=2).sendall(b"escaped")
