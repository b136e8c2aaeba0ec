"""Collect basics: gather wood, a sapling and a drink of water.

Objective: unlock collect_wood, collect_sapling and collect_drink.
World: a normal overworld start with three trees and a small pond placed within a few steps of
the player, so the first resources are always in sight. Normal rules.
"""


def build(level, rng):
    level.place_near_player("tree", count=3, max_distance=3)
    row, col = level.player_position
    # A 2x2 pond just outside the player's reach, on whichever side is on the map.
    side = 1 if row < 40 else -1
    level.fill_area("water", row + 3 * side, col - 1, row + 4 * side, col)
    level.set_goal("collect_wood", "collect_sapling", "collect_drink")
