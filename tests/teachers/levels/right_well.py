"""Clear 4 lines with a 4-deep well in the rightmost column.

Board: 4 rows full except column 9. Pieces: I pieces twice as likely as the others.
Goal: clear 4 lines within 30 pieces.
"""


def build(level, rng):
    level.well(9, 4)
    level.pieces({"I": 2.0, "O": 1.0, "T": 1.0, "S": 1.0, "Z": 1.0, "J": 1.0, "L": 1.0})
    level.goal(lines=4, pieces=30)
