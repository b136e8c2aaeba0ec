"""Hands over wood and asks for collect_wood: solved before the first step."""
# expect-stage: sandbox_build
# expect-error: already unlocked at the start
def build(level, rng):
    level.set_inventory(wood=5)
    level.set_goal("collect_wood")
