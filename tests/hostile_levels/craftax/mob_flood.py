"""Floods the start with zombies beyond the per-floor cap of 3 melee mobs."""
# expect-stage: sandbox_build
# expect-error: add_mobs_near_player: count must be in 1\.\.3
def build(level, rng):
    level.add_mobs_near_player("zombie", count=12, max_distance=10)
    level.set_goal("defeat_zombie")
