"""Corridor: everything is wall except one straight corridor along row 6. The agent starts at
its west end facing east; the goal is at the east end, twelve steps away."""


def build(level, rng):
    level.fill(0, 0, 12, 12)
    level.corridor(6, 0, 6, 12)
    level.start(6, 0, "east")
    level.goal(6, 12)
