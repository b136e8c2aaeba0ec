"""Draws the goal from rng, so every pool instance asks for something else."""
# expect-stage: schema
# expect-error: goal differs between instances
NAMES = ("collect_wood", "place_table", "eat_cow", "collect_drink", "collect_stone",
         "place_stone", "collect_coal", "collect_iron", "collect_diamond", "wake_up")


def build(level, rng):
    level.set_goal(NAMES[int(rng.integers(0, len(NAMES)))], "defeat_necromancer")
