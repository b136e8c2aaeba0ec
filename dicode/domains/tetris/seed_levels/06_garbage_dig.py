"""Garbage dig: six garbage rows, each with one hole at a random column. Dig down and clear
4 lines within 40 pieces."""


def build(level, rng):
    level.garbage(6, holes=1)
    level.goal(lines=4, pieces=40)
