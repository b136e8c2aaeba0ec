"""Open room: no walls at all; the start (cell and direction) and the goal are drawn at random
in every instance, so the goal is often out of sight and must be searched for."""


def build(level, rng):
    level.random_start()
    level.random_goal()
