"""Target game: the unmodified Craftax game.

Objective: every one of Craftax's 67 achievements (the full game; return is what matters).
World: a normal procedurally generated world, normal rules, no edits.
"""


def build(level, rng):
    level.set_goal(*level.achievements)
