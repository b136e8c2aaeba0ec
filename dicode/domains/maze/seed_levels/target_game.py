"""The target game: domain randomisation as in the curriculum literature. Twenty-five walls on
cells drawn uniformly at random, then a random start (cell and facing direction) and a random
goal, both drawn so that the goal can be reached from the start."""


def build(level, rng):
    level.random_walls(25)
