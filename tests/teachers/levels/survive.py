"""Survive 60 pieces on an empty board; S and Z pieces are three times as likely."""


def build(level, rng):
    level.pieces({"I": 1, "O": 1, "T": 1, "S": 3, "Z": 3, "J": 1, "L": 1})
    level.goal(pieces=60)
