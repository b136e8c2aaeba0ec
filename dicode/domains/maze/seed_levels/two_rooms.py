"""Two rooms: a wall across row 6 splits the maze into a north and a south room joined by a
single door at column 3. The agent starts in the north room, the goal is in the south room."""


def build(level, rng):
    level.line(6, 0, 6, 12)
    level.clear(6, 3)
    level.start(2, 9, "west")
    level.goal(10, 9)
