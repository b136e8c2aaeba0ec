"""Tetris well: four nearly full rows with a well in the rightmost column and an I piece
coming first. Drop the I piece vertically into the well to clear 4 lines within 10 pieces."""


def build(level, rng):
    level.well(9, 4)
    level.sequence("I")
    level.goal(lines=4, pieces=10)
