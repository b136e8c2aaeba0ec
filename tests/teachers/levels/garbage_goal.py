"""Clear 2 lines within 40 pieces.

Board: 3 garbage rows at the bottom, one random hole in each. Pieces: uniform.
"""


def build(level, rng):
    level.garbage(3, holes=1)
    level.goal(lines=2, pieces=40)
