"""Eight cells with a wall on cell 5: the agent starts between the left end and the wall, the
goal lies on the other side of the start, two cells away."""


def build(level, rng):
    level.length(8)
    level.wall(5)
    level.start(3)
    level.goal(1)
