"""Empty room, goal in sight: no walls; the agent starts in the middle facing east and the goal
lies two cells straight ahead. Step forward twice."""


def build(level, rng):
    level.start(6, 5, "east")
    level.goal(6, 7)
