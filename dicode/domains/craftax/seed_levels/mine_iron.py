"""Mine iron: smelt your way to an iron pickaxe.

Objective: unlock collect_coal, collect_iron, place_furnace and make_iron_pickaxe.
World: the player holds a stone pickaxe, 3 wood and 6 stone; a crafting table, coal and iron
are placed near the start. The furnace must be placed by the player next to the table.
Normal rules.
"""


def build(level, rng):
    level.set_inventory(pickaxe=2, wood=3, stone=6)
    level.place_near_player("crafting_table", max_distance=2)
    level.place_near_player("coal", count=2, max_distance=5)
    level.place_near_player("iron", count=2, max_distance=6)
    level.set_goal("collect_coal", "collect_iron", "place_furnace", "make_iron_pickaxe")
