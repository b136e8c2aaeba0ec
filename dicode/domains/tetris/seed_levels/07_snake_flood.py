"""Snake flood: S and Z pieces come three times as often as the others, on top of two garbage
rows with two holes each. Survive 80 pieces without topping out."""


def build(level, rng):
    level.garbage(2, holes=2)
    level.pieces({"I": 1, "O": 1, "T": 1, "J": 1, "L": 1, "S": 3, "Z": 3})
    level.goal(pieces=80)
