"""Asks for more lines than the pieces can supply."""
# expect-stage: rollouts
# expect-error: impossible goal
def build(level, rng):
    level.goal(lines=30, pieces=10)
