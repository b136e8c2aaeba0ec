"""Fight zombies: defeat a zombie with a wooden sword, then eat a cow to recover.

Objective: unlock defeat_zombie and eat_cow.
World: the player holds a wood sword; two zombies and one cow are placed a few steps away.
Zombies deal half damage and no new melee monsters spawn, so the fight is learnable.
"""


def build(level, rng):
    level.set_inventory(sword=1)
    level.add_mobs_near_player("zombie", count=2, max_distance=5, min_distance=3)
    level.add_mobs_near_player("cow", count=1, max_distance=6, min_distance=2)
    level.set_rules(mob_damage=0.5, spawn_melee=0.0)
    level.set_goal("defeat_zombie", "eat_cow")
