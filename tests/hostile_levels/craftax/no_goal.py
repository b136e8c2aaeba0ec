"""Edits the world but never sets a goal."""
# expect-stage: sandbox_build
# expect-error: set_goal was never called
def build(level, rng):
    level.set_inventory(wood=3)
