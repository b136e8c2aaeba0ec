"""Checks on sandbox output: nothing that comes back is trusted."""

from __future__ import annotations

import numpy as np
import pytest

from dicode.domains.craftax.builder import CraftaxLevel
from dicode.domains.craftax.level_checks import (
    LevelCheckError,
    check_pool,
    impossible_goal,
    pool_to_bundle,
    rules_of,
)
from dicode.domains.craftax.schema import StateArrays


def pool_of(worlds: list[StateArrays], edit: object) -> dict[str, np.ndarray]:
    instances = []
    for seed, world in enumerate(worlds):
        level = CraftaxLevel(world, np.random.default_rng(seed))
        edit(level, seed)  # type: ignore[operator]
        instances.append(level.to_arrays())
    return {key: np.stack([inst[key] for inst in instances]) for key in instances[0]}


def test_a_built_pool_passes_and_reports_goal_and_rules(worlds: list[StateArrays]) -> None:
    def edit(level: CraftaxLevel, seed: int) -> None:
        level.set_rules(mob_damage=0.5)
        level.set_goal("collect_wood", "place_table")

    pool = pool_of(worlds, edit)
    assert check_pool(pool) == {"collect_wood": 1, "place_table": 1}
    assert rules_of(pool)["mob_damage"] == 0.5
    assert pool_to_bundle(pool).pool_size == len(worlds)


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda p: p.update(player_health=p["player_health"] + 1000), "player_health"),
        (lambda p: p.update(map=p["map"] + 100), "map: values"),
        (lambda p: p["inventory.pickaxe"].__setitem__(0, 9), "inventory.pickaxe"),
        (lambda p: p["goal"].__setitem__((1, 1), True), "goal differs between instances"),
        (lambda p: p["rules"].__setitem__((1, 0), 0.5), "rules differ between instances"),
        (lambda p: p["rules"].__setitem__(slice(None), 9.0), "outside"),
        (
            lambda p: p["melee_mobs.mask"].__setitem__(slice(None), True),
            "melee_mobs: a live mob is missing from mob_map",
        ),
        (lambda p: p.pop("timestep"), "missing=\\['timestep'\\]"),
        (lambda p: p["goal"].__setitem__(slice(None), False), "at least one goal"),
    ],
)
def test_tampered_pools_are_rejected_with_the_field_named(
    worlds: list[StateArrays], tamper: object, message: str
) -> None:
    pool = pool_of(worlds, lambda level, seed: level.set_goal("collect_wood"))
    tamper(pool)  # type: ignore[operator]
    with pytest.raises(LevelCheckError, match=message):
        check_pool(pool)


def test_kill_goal_without_mob_or_spawns_is_impossible(worlds: list[StateArrays]) -> None:
    def no_zombies(level: CraftaxLevel, seed: int) -> None:
        level.set_rules(spawn_melee=0.0)
        level.set_goal("defeat_zombie")

    def one_zombie(level: CraftaxLevel, seed: int) -> None:
        no_zombies(level, seed)
        level.add_mobs_near_player("zombie", count=1)

    problem = impossible_goal(pool_of(worlds, no_zombies))
    assert problem and "no zombie is present and spawn_melee=0" in problem
    assert impossible_goal(pool_of(worlds, one_zombie)) is None
