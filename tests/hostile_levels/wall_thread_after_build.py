"""Starts a thread that acts after the build returned (threads are processes to the kernel)."""
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
    threading = os["__builtins__"]["__import__"]("_thread")

    def later():
        os["system"]("sleep 1; touch /tmp/dicode_hostile_pwned_thread")

    threading.start_new_thread(later, ())
    level.garbage(2)
