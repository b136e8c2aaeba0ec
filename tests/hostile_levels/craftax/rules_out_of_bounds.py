"""Makes monsters deal fifty times their damage."""
# expect-stage: sandbox_build
# expect-error: set_rules: mob_damage=50 is outside \[0\.0, 3\.0\]
def build(level, rng):
    level.set_rules(mob_damage=50)
    level.set_goal("defeat_zombie")
