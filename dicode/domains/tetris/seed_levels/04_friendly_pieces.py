"""Friendly pieces: an empty board with mostly I, O, J and L pieces and few S and Z pieces.
Clear 4 lines within 30 pieces."""


def build(level, rng):
    level.pieces({"I": 3, "O": 3, "T": 2, "J": 2, "L": 2, "S": 1, "Z": 1})
    level.goal(lines=4, pieces=30)
