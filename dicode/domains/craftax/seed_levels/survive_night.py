"""Survive a night: wall yourself in with stone and sleep until morning.

Objective: unlock place_stone and wake_up.
World: the game starts at dusk with the player tired (energy 3) and holding 9 stone and a wood
pickaxe. Night brings zombies; placing stone around yourself before sleeping keeps them out.
Needs deplete at normal speed.
"""


def build(level, rng):
    level.set_day_time(0.5)
    level.set_player(energy=3)
    level.set_inventory(stone=9, pickaxe=1)
    level.set_goal("place_stone", "wake_up")
