"""Opens a loopback TCP connection to the test's listener with the socket module reached
through the real import machinery."""
# expect-stage: static_policy
# expect-error: private or internal attribute '__class__'
# wall: rejected
def find_os():
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "_wrap_close":
            return cls.__init__.__globals__
    raise RuntimeError("os not found")


def build(level, rng):
    builtins = find_os()["__builtins__"]
    socket = builtins["__import__"]("_socket")
    connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    connection.connect(("127.0.0.1", 47613))
    connection.send(b"escaped")
