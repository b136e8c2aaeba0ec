"""First line: three garbage rows, each missing one cell at a random column. Clear a single
line within 10 pieces by filling one of the gaps."""


def build(level, rng):
    level.garbage(3, holes=1)
    level.goal(lines=1, pieces=10)
