"""Long survival: the standard piece mix on a board that starts with three garbage rows (one
hole each). Survive 200 pieces without topping out."""


def build(level, rng):
    level.garbage(3, holes=1)
    level.goal(pieces=200)
