"""Side pockets: a corridor along row 6 with short dead-end pockets above and below it. The
agent starts at the west end facing east; the goal waits at the far east end. Do not get lost
in the pockets."""


def build(level, rng):
    level.fill(3, 0, 9, 12)
    level.corridor(6, 0, 6, 12)
    for col in (2, 5, 8):
        level.corridor(4, col, 8, col)
    level.start(6, 0, "east")
    level.goal(6, 12)
