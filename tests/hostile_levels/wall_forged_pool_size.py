"""Writes a forged answer to the result pipe: a well-formed archive of the Tetris schema with
16,384 instances instead of the 2 requested (a level that sets its own pool size forces a new
compile per size and multiplies rollout cost)."""
# expect-stage: static_policy
# expect-error: private or internal attribute '__class__'
# wall: rejected
# wall-error: claims \d+ bytes|the pool size must be the one requested
import numpy as np

def find_os():
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "_wrap_close":
            return cls.__init__.__globals__
    raise RuntimeError("os not found")


def build(level, rng):
    os = find_os()
    count = 16384
    pool = dict(
        board=np.zeros((count, 20, 10), np.uint8),
        piece_weights=np.full((count, 7), 1 / 7, np.float32),
        sequence=np.full((count, 64), -1, np.int32),
        goal_lines=np.zeros((count,), np.int32),
        goal_pieces=np.zeros((count,), np.int32),
    )
    buffer = os["sys"].modules["io"].BytesIO()
    np.savez(buffer, **pool)
    os["write"](3, b'{"ok": true, "error": null}\n' + buffer.getvalue())
    os["_exit"](0)
