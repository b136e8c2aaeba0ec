"""The target game: the standard game of Tetris on an empty 10 x 20 board with uniform random
pieces and no goal other than to keep playing and clear as many lines as possible."""


def build(level, rng):
    level.goal()
