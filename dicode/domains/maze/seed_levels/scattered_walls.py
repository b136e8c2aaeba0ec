"""Scattered walls: ten walls on random cells, then a random start and a random goal the start
can reach. An easier version of the target game (which has 25 walls)."""


def build(level, rng):
    level.random_walls(10)
