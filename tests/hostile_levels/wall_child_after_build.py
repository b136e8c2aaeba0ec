"""Forks a child that waits until the build has returned, then writes a marker file and
connects to the test's socket; the parent returns normally."""
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
    if os["fork"]() == 0:
        time = os["__builtins__"]["__import__"]("time")
        time.sleep(2)
        fd = os["open"]("/tmp/dicode_hostile_pwned_child", os["O_WRONLY"] | os["O_CREAT"])
        os["write"](fd, b"the child outlived the build")
        os["_exit"](0)
    level.garbage(2)
