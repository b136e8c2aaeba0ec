"""The Craftax engine over level slots: fidelity to Craftax, rules, reward masking, goal levels
that go on after their goal, the completion bonus wrapper in Craftax's units, and no
recompilation across level swaps. One compiled step serves every test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from craftax.craftax.craftax_state import EnvParams, StaticEnvParams
from craftax.craftax.game_logic import craftax_step
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicode.domains.craftax import engine, level_slots
from dicode.domains.craftax.builder import CraftaxLevel, build_level
from dicode.domains.craftax.bundle import (
    CraftaxBundle,
    bundle_from_built,
    make_bundle,
    target_bundle,
)
from dicode.domains.craftax.catalog import MOB_CAPS, MOB_CLASSES
from dicode.domains.craftax.compilations import count_compilations
from dicode.domains.craftax.rules import RULE_NAMES, RULES
from dicode.domains.craftax.schema import StateArrays
from dicode.domains.craftax.student.slot_world import CRAFTAX_BONUS
from dicode.student.bonus import BonusParams, CompletionBonus

NUM_SLOTS, POOL, NUM_ENVS = 4, 2, 8
ENV_SLOT = jnp.array([0, 0, 1, 1, 2, 2, 3, 3], jnp.int32)
NOOP, PLACE_STONE = 0, 7


def bundle_of(
    worlds: list[StateArrays], build: Callable[[CraftaxLevel, Any], None]
) -> CraftaxBundle:
    return bundle_from_built([build_level(build, w, seed) for seed, w in enumerate(worlds)])


def _place_stone(level: CraftaxLevel, rng: Any) -> None:
    level.set_inventory(stone=5)
    r, c = level.player_position
    for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        level.place_block("grass", r + dr, c + dc)  # whichever way the player faces
    level.set_goal("place_stone")


def _holding_items(level: CraftaxLevel, rng: Any) -> None:
    level.set_inventory(wood=2, pickaxe=1, sapling=1)
    level.set_goal("place_table")


def _no_spawns_fast_needs(level: CraftaxLevel, rng: Any) -> None:
    level.set_rules(spawn_passive=0.0, spawn_melee=0.0, spawn_ranged=0.0, needs_depletion=3.0)
    level.set_goal("eat_cow")


def _zombies(damage: float) -> Callable[[CraftaxLevel, Any], None]:
    def build(level: CraftaxLevel, rng: Any) -> None:
        level.add_mobs_near_player("zombie", count=3, max_distance=2, min_distance=1)
        level.set_rules(mob_damage=damage, spawn_melee=0.0)
        level.set_goal("defeat_zombie")

    return build


@dataclass
class Rig:
    worlds: list[StateArrays]
    target: CraftaxBundle
    step: Any
    reset: Any
    write: Any

    def slots(self, *bundles: CraftaxBundle) -> engine.CraftaxParams:
        return level_slots.make_slots(list(bundles), POOL)

    def put(
        self, slots: engine.CraftaxParams, index: int, bundle: CraftaxBundle
    ) -> engine.CraftaxParams:
        return self.write(slots, jnp.int32(index), level_slots.bundle_to_slot(bundle, POOL))

    def run(
        self, slots: engine.CraftaxParams, steps: int, action: int, seed: int = 0
    ) -> list[tuple]:
        """Reset, then step all envs with a fixed action; return each step's outputs."""
        key = jax.random.PRNGKey(seed)
        _, state = self.reset(key, slots, ENV_SLOT)
        outputs = []
        actions = jnp.full((NUM_ENVS,), action, jnp.int32)
        for i in range(steps):
            _, state, reward, done, info = self.step(
                jax.random.fold_in(key, i), state, actions, slots
            )
            outputs.append((state, np.asarray(reward), np.asarray(done), info))
        return outputs


@pytest.fixture(scope="module")
def rig(base_pool: StateArrays, worlds: list[StateArrays]) -> Rig:
    rig = Rig(
        worlds=worlds,
        target=target_bundle(base_pool),
        step=jax.jit(lambda k, s, a, slots: level_slots.step(k, s, a, slots, ENV_SLOT)),
        reset=jax.jit(level_slots.reset),
        write=jax.jit(level_slots.write_slot),
    )
    # Warm-up: compile reset, step and write_slot once for the fixed shapes used below.
    slots = rig.put(rig.slots(*[rig.target] * NUM_SLOTS), 1, rig.target)
    rig.run(slots, steps=1, action=NOOP)
    return rig


def test_unit_rules_reproduce_craftax_step_exactly(rig: Rig) -> None:
    slots = rig.slots(*[rig.target] * NUM_SLOTS)
    plain = jax.jit(lambda k, s, a: craftax_step(k, s, a, EnvParams(), StaticEnvParams()))
    key = jax.random.PRNGKey(11)
    _, state = rig.reset(key, slots, ENV_SLOT)
    rng = np.random.default_rng(0)
    for t in range(6):
        actions = jnp.asarray(rng.integers(0, engine.NUM_ACTIONS, NUM_ENVS), jnp.int32)
        step_key = jax.random.fold_in(key, t)
        _, new_state, reward, done, _ = rig.step(step_key, state, actions, slots)
        env_keys = jax.random.split(jax.random.split(step_key)[0], NUM_ENVS)
        for i in range(NUM_ENVS):
            if bool(done[i]):
                continue
            one = jax.tree_util.tree_map(lambda x, i=i: x[i], state)
            want_state, want_reward = plain(env_keys[i], one, actions[i])
            got = jax.tree_util.tree_map(lambda x, i=i: x[i], new_state)
            assert float(reward[i]) == pytest.approx(float(want_reward), abs=1e-6)
            for a, b in zip(
                jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want_state), strict=True
            ):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        state = new_state


def test_achievements_implied_by_the_start_earn_nothing(rig: Rig) -> None:
    masked = bundle_of(rig.worlds, _holding_items)
    unmasked_pool = dict(masked.pool)
    unmasked_pool["achievements"] = np.zeros_like(masked.pool["achievements"])
    unmasked = make_bundle(unmasked_pool, masked.rules, masked.goal)
    slots = rig.slots(rig.target, masked, unmasked, rig.target)
    (_, reward, done, _), *_ = rig.run(slots, steps=1, action=NOOP)
    assert not done[2:6].any()
    # collect_wood + make_wood_pickaxe + collect_sapling = 3 when not masked, 0 when masked.
    assert np.abs(reward[2:4]).max() < 0.5
    assert (reward[4:6] >= 2.5).all()


def test_a_goal_level_goes_on_as_an_ordinary_game_after_its_goal(rig: Rig) -> None:
    slots = rig.slots(rig.target, bundle_of(rig.worlds, _place_stone), rig.target, rig.target)
    key = jax.random.PRNGKey(3)
    obs, state = rig.reset(key, slots, ENV_SLOT)
    goal_part = np.asarray(obs)[:, -engine.NUM_ACHIEVEMENTS :]
    assert goal_part[2:4].sum(axis=1).tolist() == [1.0, 1.0] and goal_part[[0, 4]].sum() == 0
    actions = jnp.full((NUM_ENVS,), PLACE_STONE, jnp.int32)
    obs, after, reward, done, info = rig.step(key, state, actions, slots)
    completed = [False, False, True, True] + [False] * 4
    assert np.asarray(info["success"]).tolist() == completed
    assert np.asarray(info["completed"]).tolist() == completed  # what the bonus pays for
    assert "bonus" not in info  # the engine pays none (dicode.student.bonus wraps it)
    # place_stone is worth 1; health does not change on this step.
    np.testing.assert_allclose(np.asarray(reward)[2:4], 1.0, atol=0.11)
    # The episode goes on: no reset, the achievement stays, the goal leaves the observation.
    assert not np.asarray(done).any()
    assert np.asarray(after.achievements)[2:4, 10].all()
    assert np.asarray(obs)[2:4, -engine.NUM_ACHIEVEMENTS :].sum() == 0.0
    assert np.asarray(info["attempt_over"]).tolist() == completed
    # Later steps of the same episode neither succeed again nor end the attempt again.
    _, _, _, done, info = rig.step(jax.random.fold_in(key, 1), after, actions, slots)
    assert not np.asarray(info["success"]).any() and not np.asarray(done).any()
    assert not np.asarray(info["attempt_over"]).any()


def test_the_bonus_wrapper_pays_in_craftax_units_never_above_the_target_return(rig: Rig) -> None:
    slots = rig.slots(rig.target, bundle_of(rig.worlds, _place_stone), rig.target, rig.target)
    key = jax.random.PRNGKey(3)
    _, state = rig.reset(key, slots, ENV_SLOT)
    actions = jnp.full((NUM_ENVS,), PLACE_STONE, jnp.int32)
    _, _, plain, _, _ = rig.step(key, state, actions, slots)
    wrapper = CompletionBonus(engine, CRAFTAX_BONUS)

    def bonus_step(state: Any, running: jax.Array, pays: jax.Array) -> Any:
        def wrap(levels: engine.CraftaxParams) -> BonusParams[engine.CraftaxParams]:
            return BonusParams(levels, jnp.full((NUM_ENVS,), running), pays)

        return level_slots.step(key, state, actions, slots, ENV_SLOT, wrapper, wrap)

    bonus_step = jax.jit(bonus_step)
    completed = np.asarray([False, False, True, True] + [False] * 4)
    # max(ε, min(max(d, k·R̄), R̄)) with d = 20, k = 2, ε = 0.1: a goal never pays more than a
    # whole target game returns (≈ 4.5 at 1M steps), however far below d that is.
    for running, want in ((0.0, 0.1), (0.05, 0.1), (4.5, 4.5), (30.0, 30.0)):
        for pays in (True, False):
            flags = jnp.full((NUM_ENVS,), pays)
            _, _, reward, _, info = bonus_step(state, jnp.float32(running), flags)
            paid = np.where(completed & pays, np.float32(want), 0.0)
            np.testing.assert_allclose(np.asarray(info["bonus"]), paid, rtol=1e-6)
            np.testing.assert_array_equal(np.asarray(info["engine_reward"]), plain)
            np.testing.assert_allclose(np.asarray(reward), plain + paid, rtol=1e-6)


def test_spawn_and_needs_rules_change_the_game(rig: Rig) -> None:
    slots = rig.slots(
        rig.target, rig.target, bundle_of(rig.worlds, _no_spawns_fast_needs), rig.target
    )
    outputs = rig.run(slots, steps=60, action=NOOP, seed=5)
    mobs_seen = np.zeros(NUM_ENVS, bool)
    for state, _, _, _ in outputs:
        for mob_class in MOB_CLASSES:
            mask = np.asarray(getattr(state, f"{mob_class}_mobs").mask)
            mobs_seen |= mask.any(axis=(1, 2))
    assert not mobs_seen[4:6].any()
    assert mobs_seen[[0, 1, 2, 3, 6, 7]].any()
    food = np.asarray(outputs[-1][0].player_food)
    assert food[4:6].max() + 3 <= food[[0, 1, 2, 3, 6, 7]].min()


def test_mob_damage_rule_scales_damage_to_the_player(rig: Rig) -> None:
    slots = rig.slots(rig.target, rig.target, rig.target, rig.target)
    slots = rig.put(slots, 1, bundle_of(rig.worlds, _zombies(0.0)))
    slots = rig.put(slots, 2, bundle_of(rig.worlds, _zombies(3.0)))
    rewards = np.stack([out[1] for out in rig.run(slots, steps=40, action=NOOP, seed=2)])
    assert rewards[:, 2:4].min() >= 0.0  # harmless zombies: health never drops
    assert rewards[:, 4:6].min() <= -0.3  # triple damage: at least one hit of 6 (capped by health)


def test_level_swaps_do_not_recompile(rig: Rig) -> None:
    bundles = [bundle_of(rig.worlds, b) for b in (_place_stone, _holding_items, _zombies(1.5))]
    slots = rig.slots(*[rig.target] * NUM_SLOTS)
    key = jax.random.PRNGKey(0)
    _, state = rig.reset(key, slots, ENV_SLOT)
    with count_compilations() as compiles:
        for i, bundle in enumerate(bundles):
            slots = rig.put(slots, i + 1, bundle)
            _, state = rig.reset(jax.random.fold_in(key, i), slots, ENV_SLOT)
            actions = jnp.full((NUM_ENVS,), i, jnp.int32)
            _, state, *_ = rig.step(key, state, actions, slots)
        jax.block_until_ready(state)
    assert compiles.count == 0
    assert (
        np.asarray(slots.goal[1, 0]).sum() == 1
        and float(slots.rules[3, 0][RULE_NAMES.index("mob_damage")]) == 1.5
    )


_RULE_VECTORS = st.tuples(*[st.floats(RULES[n].low, RULES[n].high) for n in RULE_NAMES])


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rules=_RULE_VECTORS, seed=st.integers(0, 2**16))
def test_any_bounded_rules_keep_the_state_valid(
    rig: Rig, rules: tuple[float, ...], seed: int
) -> None:
    level = make_bundle(rig.target.pool, np.asarray(rules, np.float32), rig.target.goal)
    slots = rig.slots(level, level, rig.target, level)
    key = jax.random.PRNGKey(seed)
    _, state = rig.reset(key, slots, ENV_SLOT)
    rng = np.random.default_rng(seed)
    for t in range(8):
        actions = jnp.asarray(rng.integers(0, engine.NUM_ACTIONS, NUM_ENVS), jnp.int32)
        _, state, reward, _, _ = rig.step(jax.random.fold_in(key, t), state, actions, slots)
        env = state
        assert np.isfinite(np.asarray(reward)).all()
        health = np.asarray(env.player_health)
        assert np.isfinite(health).all() and (health <= 8 + np.asarray(env.player_strength)).all()
        assert (np.asarray(env.player_food) >= 0).all()
        for mob_class in MOB_CLASSES:
            count = np.asarray(getattr(env, f"{mob_class}_mobs").mask).sum(axis=2)
            assert (count <= MOB_CAPS[mob_class]).all()
