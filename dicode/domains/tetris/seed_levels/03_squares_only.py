"""Squares only: an empty board where every piece is an O. Lay the squares side by side to
clear 2 lines within 12 pieces."""


def build(level, rng):
    level.pieces({"O": 1})
    level.goal(lines=2, pieces=12)
