"""Craft tools: build a wood pickaxe and sword, then upgrade to a stone pickaxe.

Objective: unlock place_table, make_wood_pickaxe, make_wood_sword, collect_stone and
make_stone_pickaxe.
World: the player starts with 4 wood; trees and a patch of stone are placed nearby. The
crafting table must be placed by the player (it needs wood). Normal rules.
"""


def build(level, rng):
    level.set_inventory(wood=4)
    level.place_near_player("tree", count=3, max_distance=4)
    level.place_near_player("stone", count=5, max_distance=5)
    level.set_goal(
        "place_table",
        "make_wood_pickaxe",
        "make_wood_sword",
        "collect_stone",
        "make_stone_pickaxe",
    )
