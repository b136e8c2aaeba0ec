"""Descend: find the ladder and enter the dungeon.

Objective: unlock enter_dungeon.
World: the player starts a few steps from the overworld's down-ladder (the ladder is open),
holding a stone sword and 3 torches for the dark floor below. Normal rules.
"""


def build(level, rng):
    level.set_inventory(sword=2, torches=3)
    row, col = level.ladder_position("down")
    spots = []
    for dr in range(-3, 4):
        for dc in range(-3, 4):
            r, c = row + dr, col + dc
            near = max(abs(dr), abs(dc)) >= 2 and 0 <= r < 48 and 0 <= c < 48
            if near and level.block_at(r, c) in ("grass", "sand", "path"):
                spots.append((r, c))
    if spots:
        r, c = spots[int(rng.integers(len(spots)))]
    else:
        # No open ground next to the ladder: clear a path cell beside it.
        r, c = row, min(col + 2, 47)
        level.place_block("path", r, c)
    level.set_player_position(r, c)
    level.set_goal("enter_dungeon")
