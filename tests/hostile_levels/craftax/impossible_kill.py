"""Asks for a zombie kill while no zombie exists and none may spawn."""
# expect-stage: rollouts
# expect-error: goal defeat_zombie is impossible
def build(level, rng):
    level.set_rules(spawn_melee=0.0)
    level.set_goal("defeat_zombie")
