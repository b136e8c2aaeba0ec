"""Writes the builder's private state arrays directly to give the player 1000 health."""
# expect-stage: static_policy
# expect-error: private or internal attribute '_s'
def build(level, rng):
    level._s["player_health"] = 1000.0
    level.set_goal("collect_wood")
