"""Sets the player's health to NaN."""
# expect-stage: sandbox_build
# expect-error: set_player: health must be a whole number
def build(level, rng):
    level.set_player(health=float("nan"))
    level.set_goal("collect_wood")
