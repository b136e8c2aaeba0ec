"""The level builder: bounds, clear errors, mob caps, implied achievements, seed levels."""

from __future__ import annotations

import contextlib
import importlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicode.domains.craftax.builder import BuildError, CraftaxLevel, build_level
from dicode.domains.craftax.bundle import bundle_from_built
from dicode.domains.craftax.catalog import (
    ACHIEVEMENT_IDS,
    BLOCK_IDS,
    MOB_CAPS,
    MOB_CLASSES,
    MOB_KINDS,
    PLACEABLE_BLOCKS,
)
from dicode.domains.craftax.level_checks import check_pool
from dicode.domains.craftax.rules import RULE_NAMES, RULES
from dicode.domains.craftax.schema import StateArrays, check_state_arrays
from dicode.domains.craftax.seed_levels import SEED_LEVEL_NAMES, seed_level_source


def new_level(world: StateArrays, seed: int = 0) -> CraftaxLevel:
    return CraftaxLevel(world, np.random.default_rng(seed))


def open_cell_near_player(level: CraftaxLevel, distance: int = 2) -> tuple[int, int]:
    r, c = level.player_position
    for dr in range(-distance, distance + 1):
        for dc in range(-distance, distance + 1):
            if (dr, dc) != (0, 0) and level.block_at(r + dr, c + dc) == "grass":
                return r + dr, c + dc
    raise AssertionError("no grass near the player")


@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
def test_seed_levels_build_on_real_worlds(worlds: list[StateArrays], name: str) -> None:
    module = importlib.import_module(f"dicode.domains.craftax.seed_levels.{name}")
    assert module.__doc__ and module.__doc__.strip()
    assert "def build(level, rng)" in seed_level_source(name)
    built = [build_level(module.build, w, seed) for seed, w in enumerate(worlds)]
    bundle = bundle_from_built(built)
    assert bundle.goal.any()
    assert not (bundle.pool["achievements"][:, bundle.goal]).all(axis=1).any()
    again = build_level(module.build, worlds[0], 0)
    for field, value in built[0].state.items():
        np.testing.assert_array_equal(value, again.state[field], err_msg=f"{name}: {field}")


def test_vitals_attributes_and_inventory_are_clamped(worlds: list[StateArrays]) -> None:
    level = new_level(worlds[0])
    level.set_attributes(strength=9, dexterity=0)
    level.set_player(health=100, food=0, mana=-3)
    level.set_inventory(wood=500, pickaxe=7, bow=3)
    level.set_goal("place_table")
    state = level.finish().state
    assert int(state["player_strength"]) == 5 and int(state["player_dexterity"]) == 1
    assert float(state["player_health"]) == 13.0  # 8 + strength
    assert int(state["player_food"]) == 1 and int(state["player_mana"]) == 1
    assert int(state["inventory.wood"]) == 99
    assert int(state["inventory.pickaxe"]) == 4 and int(state["inventory.bow"]) == 1


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (
            lambda lv: lv.place_block("gold", 1, 1),
            r"place_block: unknown or unplaceable block 'gold'",
        ),
        (lambda lv: lv.place_block("necromancer", 1, 1), r"place_block: .*'necromancer'"),
        (lambda lv: lv.place_block("stone", 48, 0), r"place_block: row must be in 0\.\.47, got 48"),
        (lambda lv: lv.place_block("stone", 2.5, 0), r"place_block: row must be a whole number"),
        (lambda lv: lv.place_block("stone", True, 0), r"place_block: row must be an integer"),
        (lambda lv: lv.set_floor(9), r"set_floor: floor must be in 0\.\.8, got 9"),
        (
            lambda lv: lv.set_rules(mob_damage=5),
            r"set_rules: mob_damage=5 is outside \[0\.0, 3\.0\]",
        ),
        (lambda lv: lv.set_rules(gravity=2), r"set_rules: unknown rule 'gravity'"),
        (lambda lv: lv.set_rules(mob_health=float("nan")), r"set_rules: mob_health must be finite"),
        (lambda lv: lv.set_goal("fly"), r"set_goal: unknown achievement 'fly'"),
        (lambda lv: lv.set_goal(), r"set_goal: give at least one achievement"),
        (lambda lv: lv.set_inventory(gold=3), r"set_inventory: unknown item 'gold'"),
        (lambda lv: lv.add_mob("dragon", 1, 1), r"add_mob: unknown mob kind 'dragon'"),
        (lambda lv: lv.set_day_time(1.5), r"set_day_time: fraction must be in \[0, 1\)"),
        (lambda lv: lv.place_near_player("tree", count=0), r"place_near_player: count must be"),
        (lambda lv: lv.finish(), r"set_goal was never called"),
    ],
)
def test_bad_calls_raise_errors_naming_method_and_value(
    worlds: list[StateArrays], call: object, pattern: str
) -> None:
    with pytest.raises(BuildError, match=pattern):
        call(new_level(worlds[0]))  # type: ignore[operator]


def test_rules_are_recorded_in_order(worlds: list[StateArrays]) -> None:
    level = new_level(worlds[0])
    level.set_rules(mob_damage=0.5, spawn_melee=0.0, needs_depletion=3)
    level.set_goal("collect_wood")
    rules = level.finish().rules
    expected = {name: 1.0 for name in RULE_NAMES} | {
        "mob_damage": 0.5,
        "spawn_melee": 0.0,
        "needs_depletion": 3.0,
    }
    assert rules.tolist() == [expected[name] for name in RULE_NAMES]
    assert set(RULES) == set(RULE_NAMES) and len(RULE_NAMES) == 9


@pytest.mark.parametrize(
    ("kind", "mob_class"), [("zombie", "melee"), ("cow", "passive"), ("skeleton", "ranged")]
)
def test_mob_caps_per_floor(worlds: list[StateArrays], kind: str, mob_class: str) -> None:
    level = new_level(worlds[0])
    cap = MOB_CAPS[mob_class]
    level.add_mobs_near_player(kind, count=cap, max_distance=8)
    assert level.mob_count(mob_class) == cap
    cell = open_cell_near_player(level, distance=10)
    with pytest.raises(BuildError, match=rf"add_mob: floor 0 already holds {cap} {mob_class} mobs"):
        level.add_mob(kind, *cell)
    with pytest.raises(BuildError, match=r"add_mobs_near_player: count must be in 1\.\.0"):
        level.add_mobs_near_player(kind, count=1)
    # Other floors have their own caps.
    level.set_floor(1)
    level.add_mobs_near_player(kind, count=1, max_distance=8, min_distance=1)
    level.set_goal("eat_snail")
    state = level.finish().state
    assert state[f"{mob_class}_mobs.mask"][0].sum() == cap
    assert state[f"{mob_class}_mobs.mask"][1].sum() == 1


def test_mobs_need_suitable_free_cells(worlds: list[StateArrays]) -> None:
    level = new_level(worlds[0])
    r, c = level.player_position
    with pytest.raises(BuildError, match="the player stands there"):
        level.add_mob("zombie", r, c)
    cell = open_cell_near_player(level)
    level.place_block("water", *cell)
    with pytest.raises(BuildError, match="cannot stand in water"):
        level.add_mob("zombie", *cell)
    level.place_block("grass", *cell)
    level.add_mob("zombie", *cell)
    with pytest.raises(BuildError, match="another mob stands there"):
        level.add_mob("cow", *cell)
    with pytest.raises(BuildError, match="may not cover"):
        level.place_block("stone", *cell)


def test_mob_health_rule_scales_starting_mobs_once(worlds: list[StateArrays]) -> None:
    level = new_level(worlds[0])
    level.add_mobs_near_player("zombie", count=1)
    level.set_rules(mob_health=2.0)
    level.set_goal("defeat_zombie")
    for _ in range(2):  # finishing again must not scale again
        state = level.finish().state
        assert state["melee_mobs.health"][0][state["melee_mobs.mask"][0]].tolist() == [10.0]


def test_level_code_cannot_replace_builder_methods(worlds: list[StateArrays]) -> None:
    level = new_level(worlds[0])
    with pytest.raises(AttributeError):
        level.to_arrays = lambda: {}  # type: ignore[method-assign]
    with pytest.raises(AttributeError):
        level.extra = 1  # type: ignore[attr-defined]


def test_start_implies_achievements_and_they_cannot_be_goals(worlds: list[StateArrays]) -> None:
    level = new_level(worlds[0])
    level.set_inventory(pickaxe=2, wood=1)
    level.set_floor(3)
    level.set_goal("make_stone_pickaxe", "collect_iron")
    with pytest.raises(BuildError, match=r"make_stone_pickaxe.*inventory pickaxe=2"):
        level.finish()
    level.set_goal("collect_iron")
    state = level.finish().state
    unlocked = {name for name, i in ACHIEVEMENT_IDS.items() if state["achievements"][i]}
    assert unlocked == {"make_wood_pickaxe", "make_stone_pickaxe", "collect_wood", "enter_sewers"}
    assert int(state["player_level"]) == 3
    assert tuple(state["player_position"]) == tuple(worlds[0]["up_ladders"][3])


def test_solid_blocks_never_bury_the_player_or_ladders(worlds: list[StateArrays]) -> None:
    level = new_level(worlds[0])
    r, c = level.player_position
    with pytest.raises(BuildError, match="may not cover"):
        level.place_block("stone", r, c)
    level.fill_area("stone", r - 2, c - 2, r + 2, c + 2)
    assert level.block_at(r, c) != "stone" and level.block_at(r - 2, c - 2) == "stone"
    lr, lc = level.ladder_position("down")
    with pytest.raises(BuildError, match="may not cover"):
        level.place_block("lava", lr, lc)


def test_planted_saplings_are_registered_and_replaced_cleanly(worlds: list[StateArrays]) -> None:
    level = new_level(worlds[0])
    (cell,) = level.place_near_player("plant", count=1, max_distance=2)
    level.place_block("grass", *cell)
    (cell2,) = level.place_near_player("plant", count=1, max_distance=2)
    level.set_goal("eat_plant")
    state = level.finish().state
    live = state["growing_plants_positions"][state["growing_plants_mask"]].tolist()
    assert live == [list(cell2)]
    assert state["map"][0][cell2] == BLOCK_IDS["plant"]


# ---------------------------------------------------------------- property test
_BLOCKS = st.sampled_from(sorted(PLACEABLE_BLOCKS))
_KINDS = st.sampled_from(sorted(MOB_KINDS))
_VITAL, _ATTRIBUTE = st.integers(-5, 30), st.integers(-3, 9)
_CALLS = st.one_of(
    st.tuples(st.just("place_block"), _BLOCKS, st.integers(-2, 50), st.integers(-2, 50)),
    st.tuples(st.just("add_mob"), _KINDS, st.integers(0, 47), st.integers(0, 47)),
    st.tuples(st.just("add_mobs_near_player"), _KINDS, st.integers(0, 4), st.integers(1, 8)),
    st.tuples(st.just("set_player"), _VITAL, _VITAL, _VITAL),
    st.tuples(st.just("set_attributes"), _ATTRIBUTE, _ATTRIBUTE, _ATTRIBUTE),
    st.tuples(st.just("set_floor"), st.integers(-1, 9), st.just(0), st.just(0)),
    st.tuples(st.just("set_rules"), st.sampled_from(RULE_NAMES), st.floats(-1, 6), st.just(0)),
)  # fmt: skip


def _apply(level: CraftaxLevel, call: tuple) -> None:
    name, a, b, c = call
    if name == "place_block":
        level.place_block(a, b, c)
    elif name == "add_mob":
        level.add_mob(a, b, c)
    elif name == "add_mobs_near_player":
        level.add_mobs_near_player(a, count=b, max_distance=c, min_distance=1)
    elif name == "set_player":
        level.set_player(health=a, food=b, energy=c)
    elif name == "set_attributes":
        level.set_attributes(dexterity=a, strength=b, intelligence=c)
    elif name == "set_floor":
        level.set_floor(a)
    else:
        level.set_rules(**{a: b})


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(calls=st.lists(_CALLS, max_size=12), seed=st.integers(0, 2**16))
def test_any_call_sequence_yields_a_valid_world_or_a_build_error(
    worlds: list[StateArrays], calls: list[tuple], seed: int
) -> None:
    level = new_level(worlds[seed % len(worlds)], seed)
    for call in calls:
        with contextlib.suppress(BuildError):
            _apply(level, call)
    level.set_goal("defeat_necromancer")
    built = level.finish()
    state = check_state_arrays(built.state)
    # What the pipeline re-checks on sandbox output holds for anything the builder makes.
    check_pool({key: value[None] for key, value in level.to_arrays().items()})
    for mob_class in MOB_CLASSES:
        assert (state[f"{mob_class}_mobs.mask"].sum(axis=1) <= MOB_CAPS[mob_class]).all()
    max_health = 8 + int(state["player_strength"])
    assert 1 <= float(state["player_health"]) <= max_health
    assert 1 <= int(state["player_food"]) <= 7 + 2 * int(state["player_dexterity"])
    f = int(state["player_level"])
    r, c = state["player_position"]
    assert not state["mob_map"][f, r, c]
    for rule, value in zip(RULE_NAMES, built.rules, strict=True):
        assert RULES[rule].low <= value <= RULES[rule].high
    # Every live mob is marked on the mob map of its floor.
    for mob_class in MOB_CLASSES:
        for floor in range(9):
            for pos in state[f"{mob_class}_mobs.position"][floor][
                state[f"{mob_class}_mobs.mask"][floor]
            ]:
                assert state["mob_map"][floor, pos[0], pos[1]]
