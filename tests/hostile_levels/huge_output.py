"""Prints without end, catching the error the output cap raises."""
# expect-stage: sandbox_build
# expect-error: printed more than
def build(level, rng):
    for _ in range(1000):
        try:
            print("x" * 100_000)
        except Exception:
            pass
