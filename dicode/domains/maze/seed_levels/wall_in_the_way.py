"""Wall in the way: one vertical wall in the middle column from row 2 to row 10. The agent
starts west of it facing east, the goal lies just east of it: walk around either end."""


def build(level, rng):
    level.line(2, 6, 10, 6)
    level.start(6, 3, "east")
    level.goal(6, 9)
