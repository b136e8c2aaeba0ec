"""Starts on a floor that does not exist."""
# expect-stage: sandbox_build
# expect-error: set_floor: floor must be in 0\.\.8, got 12
def build(level, rng):
    level.set_floor(12)
    level.set_goal("enter_graveyard")
