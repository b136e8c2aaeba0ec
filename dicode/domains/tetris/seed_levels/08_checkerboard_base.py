"""Checkerboard base: the bottom four rows are a checkerboard of filled and empty cells, so
nothing clears until the gaps are filled. Clear 6 lines within 60 pieces."""


def build(level, rng):
    offset = int(rng.integers(0, 2))
    for row in range(4):
        for col in range(level.width):
            if (row + col + offset) % 2 == 0:
                level.fill(row, col)
    level.goal(lines=6, pieces=60)
