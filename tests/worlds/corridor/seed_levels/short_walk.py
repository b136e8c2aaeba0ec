"""A short corridor of four cells: start at the left end, the goal at the right end."""


def build(level, rng):
    level.length(4)
    level.start(0)
    level.goal(3)
