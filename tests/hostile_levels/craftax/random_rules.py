"""Draws the damage multiplier from rng: rules would differ between pool instances."""
# expect-stage: schema
# expect-error: rules differ between instances
def build(level, rng):
    level.set_rules(mob_damage=float(rng.uniform(0.0, 3.0)))
    level.set_goal("defeat_zombie")
