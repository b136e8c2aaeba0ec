"""The target game: the whole corridor of sixteen cells, a random start and a random goal."""


def build(level, rng):
    level.length(16)
