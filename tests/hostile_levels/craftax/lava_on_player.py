"""Pours lava on the player's own cell."""
# expect-stage: sandbox_build
# expect-error: place_block: lava may not cover
def build(level, rng):
    row, col = level.player_position
    level.place_block("lava", row, col)
    level.set_goal("collect_wood")
