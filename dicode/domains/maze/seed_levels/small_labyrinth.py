"""Small labyrinth: two nested square rings around the centre, each with one door on a
different side. The agent starts in the top-left corner facing east; the goal is in the
centre. Find the outer door, walk round to the inner door, step in."""


def build(level, rng):
    level.room(2, 2, 10, 10)
    level.clear(10, 6)
    level.room(4, 4, 8, 8)
    level.clear(4, 6)
    level.start(0, 0, "east")
    level.goal(6, 6)
