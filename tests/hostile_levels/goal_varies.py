"""Gives every instance a different goal."""
# expect-stage: schema
# expect-error: same goal
def build(level, rng):
    level.goal(lines=int(rng.integers(1, 10)), pieces=50)
