"""Ragged stack: the bottom rows hold columns of random heights (0 to 5 cells) with one
column left empty as a well. Clear 5 lines within 40 pieces."""


def build(level, rng):
    well = int(rng.integers(0, level.width))
    for col in range(level.width):
        if col != well:
            level.column(col, int(rng.integers(0, 6)))
    level.goal(lines=5, pieces=40)
