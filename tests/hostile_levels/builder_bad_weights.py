"""Asks for a piece that does not exist."""
# expect-stage: sandbox_build
# expect-error: level.pieces: unknown piece 'X'
def build(level, rng):
    level.pieces({"X": 1.0, "I": 1.0})
