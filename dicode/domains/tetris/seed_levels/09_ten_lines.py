"""Ten lines: the standard empty board and uniform random pieces, with a target of 10 lines
within 60 pieces."""


def build(level, rng):
    level.goal(lines=10, pieces=60)
