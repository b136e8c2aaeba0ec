"""The Craftax engine dicode trains on: Craftax-Symbolic with level slots, reset pools, rule
multipliers and goals — compiled once for a whole run.

* **Slots.** ``LevelSlots`` holds S levels as stacked arrays: a pool of K initial worlds,
  a rule vector and a goal multi-hot per slot. Each env plays one slot (``env_slot``).
  Swapping a level writes new arrays into a slot (``write_slot``); shapes never change, so
  nothing recompiles. Resets copy a random pool world of the env's slot; no world is
  generated during training.
* **Step.** Craftax 1.6.1's own step phases (``craftax.craftax.game_logic``), called in
  Craftax's order with the same random keys, plus small overrides for the rule multipliers
  (see ``rules.py``); with every multiplier at 1.0 it reproduces ``craftax_step`` exactly.
  Overrides, precisely:
    - ``mob_damage``: the player's health loss inside ``update_mobs`` (melee hits and
      projectiles, after armour) is scaled;
    - ``spawn_*``: each mob newly spawned by ``spawn_mobs`` is kept with that probability;
    - ``mob_health``: newly spawned mobs' health is scaled (the builder scales mobs present
      at the start);
    - ``needs_depletion``, ``health_recover``, ``health_loss``, ``mana_recover``: the hunger,
      thirst, fatigue, recovery and mana accumulators get ``(m − 1) ×`` their normal
      per-step increment added just before Craftax updates intrinsics, so they advance at
      ``m ×`` the normal speed. The increment uses the sleeping/needs status before that
      update, so on the one step where sleep starts or a need reaches zero the old rate
      applies.
* **Reward.** Craftax's reward (new achievements weighted 1/3/5/8, + 0.1·Δhealth). Pool
  worlds carry the achievements their start implies as already unlocked, so those earn
  nothing. Success = the step that completes the goal (all goal achievements unlocked, not all
  of them before; never for an empty goal). The engine pays no bonus: ``info["completed"]``
  marks the success, and the student adds DiCode's completion bonus on it
  (``dicode.student.bonus.with_completion_bonus``).
* **After the goal** the episode goes on as an ordinary game (the goal leaves the observation)
  until it ends as Craftax's do: whole games, where the day–night cycle and the crafting chain
  are learnt, stay in the mix. ``info["attempt_over"]`` marks where the level's attempt at its
  goal ended — the success, or the episode's end without one — which per-level statistics
  count as the level's episode.
* **Observation.** Craftax's symbolic observation (8268) followed by the goal multi-hot (67),
  zeros once the goal is met.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from craftax.craftax.constants import ACHIEVEMENT_REWARD_MAP, Action
from craftax.craftax.craftax_state import EnvParams, EnvState, StaticEnvParams
from craftax.craftax.game_logic import (
    boss_logic,
    calculate_inventory_achievements,
    cast_spell,
    change_floor,
    do_action,
    do_crafting,
    drink_potion,
    enchant,
    is_game_over,
    level_up_attributes,
    move_player,
    place_block,
    read_book,
    shoot_projectile,
    spawn_mobs,
    update_mobs,
    update_plants,
    update_player_intrinsics,
)
from craftax.craftax.renderer import render_craftax_symbolic
from craftax.craftax.util.game_logic_utils import (
    calculate_light_level,
    clip_inventory_and_intrinsics,
    is_fighting_boss,
)
from flax import struct

from dicode.domains.craftax.bundle import CraftaxBundle, resize_pool
from dicode.domains.craftax.catalog import MOB_CLASSES, NUM_ACHIEVEMENTS
from dicode.domains.craftax.rules import RULE_NAMES
from dicode.domains.craftax.state_codec import arrays_to_state

OBS_SIZE = 8268 + NUM_ACHIEVEMENTS
NUM_ACTIONS = len(Action)
# Finished envs are reset in scatter batches of max(8, N/16) rows.
_MIN_SCATTER_RESETS = 8
_R = {name: i for i, name in enumerate(RULE_NAMES)}


@struct.dataclass
class LevelSlots:
    """S level slots: ``pool`` leaves are (S, K, ...); ``rules`` (S, R); ``goal`` (S, 67)."""

    pool: EnvState
    rules: jax.Array
    goal: jax.Array


@struct.dataclass
class EngineState:
    """Per-env Craftax states (leading axis N) and the slot each env plays."""

    env: EnvState
    env_slot: jax.Array  # (N,) int32


def make_slots(bundles: Sequence[CraftaxBundle], pool_size: int) -> LevelSlots:
    """Stack bundles into slots; every pool is cycled or cut to ``pool_size`` worlds."""
    if not bundles:
        raise ValueError("make_slots needs at least one bundle")
    pools = [resize_pool(b.pool, pool_size) for b in bundles]
    stacked = {name: np.stack([p[name] for p in pools]) for name in pools[0]}
    return LevelSlots(
        pool=arrays_to_state(stacked, batch_dims=2),
        rules=jnp.stack([jnp.asarray(b.rules) for b in bundles]),
        goal=jnp.stack([jnp.asarray(b.goal) for b in bundles]),
    )


def bundle_to_slot(bundle: CraftaxBundle, pool_size: int) -> LevelSlots:
    """One bundle as a single-slot ``LevelSlots`` (leading axis 1), ready for ``write_slot``."""
    return make_slots([bundle], pool_size)


def write_slot(slots: LevelSlots, index: jax.Array, level: LevelSlots) -> LevelSlots:
    """Write a one-slot ``level`` into slot ``index`` (a traced int: no recompilation)."""
    return jax.tree_util.tree_map(lambda all_, one: all_.at[index].set(one[0]), slots, level)


def write_pool_entries(
    slots: LevelSlots, index: jax.Array, positions: jax.Array, worlds: EnvState
) -> LevelSlots:
    """Overwrite pool entries ``positions`` (R,) of slot ``index`` with ``worlds`` (leading
    axis R), e.g. to refresh the target game's pool with new worlds; rules and goal stay."""
    pool = jax.tree_util.tree_map(
        lambda all_, new: all_.at[index, positions].set(new), slots.pool, worlds
    )
    return LevelSlots(pool=pool, rules=slots.rules, goal=slots.goal)


def _scale_mob_damage(state: EnvState, health_before: jax.Array, m: jax.Array) -> EnvState:
    delta = state.player_health - health_before
    return state.replace(player_health=health_before + jnp.where(delta < 0, delta * m, delta))


def _apply_spawn_rules(
    key: jax.Array, state: EnvState, masks_before: tuple[jax.Array, ...], rules: jax.Array
) -> EnvState:
    """Drop each fresh spawn with probability 1 − spawn_<class>; scale kept ones' health."""
    floor = state.player_level
    mob_map = state.mob_map
    updates: dict[str, Any] = {}
    for i, (mob_class, before) in enumerate(zip(MOB_CLASSES, masks_before, strict=True)):
        mobs = getattr(state, f"{mob_class}_mobs")
        after = mobs.mask[floor]
        fresh = after & ~before
        keep_chance = rules[_R[f"spawn_{mob_class}"]]
        dropped = fresh & (
            jax.random.uniform(jax.random.fold_in(key, i), after.shape) >= keep_chance
        )
        kept = fresh & ~dropped
        rows, cols = mobs.position[floor, :, 0], mobs.position[floor, :, 1]
        mob_map = mob_map.at[floor, rows, cols].set(mob_map[floor, rows, cols] & ~dropped)
        health = jnp.where(kept, mobs.health[floor] * rules[_R["mob_health"]], mobs.health[floor])
        updates[f"{mob_class}_mobs"] = mobs.replace(
            mask=mobs.mask.at[floor].set(after & ~dropped),
            health=mobs.health.at[floor].set(health),
        )
    return state.replace(mob_map=mob_map, **updates)


def _speed_up_intrinsics(
    state: EnvState, rules: jax.Array, static_params: StaticEnvParams
) -> EnvState:
    """Add (m − 1) × the normal increment to each intrinsic accumulator (see module doc)."""
    sleeping = state.is_sleeping
    decay = 1.0 - 0.125 * (state.player_dexterity - 1)
    need_rate = jnp.where(sleeping, 0.5, 1.0) * decay
    extra_need = rules[_R["needs_depletion"]] - 1.0
    needs_met = (
        (state.player_food > 0) & (state.player_drink > 0) & ((state.player_energy > 0) | sleeping)
    )
    not_boss = jnp.logical_not(is_fighting_boss(state, static_params))
    recover_gain = (rules[_R["health_recover"]] - 1.0) * jnp.where(sleeping, 2.0, 1.0)
    recover_loss = (rules[_R["health_loss"]] - 1.0) * jnp.where(sleeping, -0.5, -1.0) * not_boss
    mana_gain = (rules[_R["mana_recover"]] - 1.0) * jnp.where(sleeping, 2.0, 1.0)
    return state.replace(
        player_hunger=state.player_hunger + extra_need * need_rate,
        player_thirst=state.player_thirst + extra_need * need_rate,
        player_fatigue=state.player_fatigue + jnp.where(sleeping, 0.0, extra_need * decay),
        player_recover=state.player_recover + jnp.where(needs_met, recover_gain, recover_loss),
        player_recover_mana=state.player_recover_mana + mana_gain,
    )


def rule_step(
    rng: jax.Array,
    state: EnvState,
    action: jax.Array,
    rules: jax.Array,
    params: EnvParams,
    static_params: StaticEnvParams,
) -> tuple[EnvState, jax.Array]:
    """One Craftax step of a single env under ``rules``; returns the state and Craftax reward."""
    init_achievements, init_health = state.achievements, state.player_health
    idle = jnp.logical_or(state.is_sleeping, state.is_resting)
    action = jnp.where(idle, Action.NOOP.value, action)

    state = change_floor(state, action, params, static_params)
    state = do_crafting(state, action)
    rng, key = jax.random.split(rng)
    state = do_action(key, state, action, static_params)
    state = place_block(state, action, static_params)
    state = shoot_projectile(state, action, static_params)
    state = cast_spell(state, action, static_params)
    state = drink_potion(state, action)
    rng, key = jax.random.split(rng)
    state = read_book(key, state, action)
    rng, key = jax.random.split(rng)
    state = enchant(key, state, action)
    state = boss_logic(state, static_params)
    state = level_up_attributes(state, action, params)
    state = move_player(state, action, params)

    rng, key = jax.random.split(rng)
    health_before = state.player_health
    state = update_mobs(key, state, params, static_params)
    state = _scale_mob_damage(state, health_before, rules[_R["mob_damage"]])

    rng, key = jax.random.split(rng)
    floor = state.player_level
    masks_before = tuple(getattr(state, f"{c}_mobs").mask[floor] for c in MOB_CLASSES)
    state = spawn_mobs(state, key, params, static_params)
    state = _apply_spawn_rules(jax.random.fold_in(key, 7), state, masks_before, rules)

    state = update_plants(state, static_params)
    state = _speed_up_intrinsics(state, rules, static_params)
    state = update_player_intrinsics(state, action, static_params)
    state = clip_inventory_and_intrinsics(state, params)
    state = calculate_inventory_achievements(state)

    gained = state.achievements.astype(jnp.int32) - init_achievements.astype(jnp.int32)
    reward = (gained * ACHIEVEMENT_REWARD_MAP).sum() + (state.player_health - init_health) * 0.1
    rng, key = jax.random.split(rng)
    state = state.replace(
        timestep=state.timestep + 1,
        light_level=calculate_light_level(state.timestep + 1, params),
        state_rng=key,
    )
    return state, reward


def _goal_met(achievements: jax.Array, goal: jax.Array) -> jax.Array:
    """Every goal achievement unlocked (True for the empty goal); leading axes broadcast."""
    return jnp.all(achievements | ~goal, axis=-1)


def _observe(state: EnvState, goal: jax.Array) -> jax.Array:
    # A met goal leaves the observation: the rest of the episode is an ordinary game.
    shown = goal & ~_goal_met(state.achievements, goal)
    return jnp.concatenate([render_craftax_symbolic(state), shown.astype(jnp.float32)])


def _reset_done(
    key: jax.Array, env: EnvState, env_slot: jax.Array, done: jax.Array, slots: LevelSlots
) -> EnvState:
    """Replace finished envs by a random pool world of their slot.

    Few envs finish per step, so rows are scattered in batches of max(8, N/16) inside a
    ``while_loop`` (usually zero or one pass): the batch state is updated in place, never
    copied or selected as a whole.
    """
    num_envs = done.shape[0]
    batch = max(_MIN_SCATTER_RESETS, num_envs // 16)
    pool_size = jax.tree_util.tree_leaves(slots.pool)[0].shape[1]
    picks = jax.random.randint(key, (num_envs,), 0, pool_size)

    def scatter(carry: tuple[EnvState, jax.Array]) -> tuple[EnvState, jax.Array]:
        env, pending = carry
        rows = jnp.nonzero(pending, size=batch, fill_value=num_envs)[0]
        safe = jnp.minimum(rows, num_envs - 1)
        src_slot, src_pick = env_slot[safe], picks[safe]
        env = jax.tree_util.tree_map(
            lambda x, p: x.at[rows].set(p[src_slot, src_pick], mode="drop"), env, slots.pool
        )
        return env, pending.at[rows].set(False, mode="drop")

    env, _ = jax.lax.while_loop(lambda carry: carry[1].any(), scatter, (env, done))
    return env


def reset(key: jax.Array, slots: LevelSlots, env_slot: jax.Array) -> tuple[jax.Array, EngineState]:
    """Start every env on a random pool world of its slot. ``env_slot``: (N,) int32."""
    pool_size = jax.tree_util.tree_leaves(slots.pool)[0].shape[1]
    picks = jax.random.randint(key, env_slot.shape, 0, pool_size)
    env = jax.tree_util.tree_map(lambda p: p[env_slot, picks], slots.pool)
    obs = jax.vmap(_observe)(env, slots.goal[env_slot])
    return obs, EngineState(env=env, env_slot=env_slot.astype(jnp.int32))


def restart(
    key: jax.Array, state: EngineState, which: jax.Array, slots: LevelSlots
) -> tuple[jax.Array, EngineState]:
    """Restart the envs where ``which`` (N,) is True from a random pool world of their slot
    (e.g. after a new level was written into it); the others keep playing."""
    env = _reset_done(key, state.env, state.env_slot, which, slots)
    obs = jax.vmap(_observe)(env, slots.goal[state.env_slot])
    return obs, EngineState(env=env, env_slot=state.env_slot)


def step(
    key: jax.Array,
    state: EngineState,
    action: jax.Array,
    slots: LevelSlots,
    params: EnvParams | None = None,
    static_params: StaticEnvParams | None = None,
) -> tuple[jax.Array, EngineState, jax.Array, jax.Array, dict[str, jax.Array]]:
    """Step all N envs; finished ones restart from their slot's pool.

    Returns ``(obs, state, reward, done, info)``; ``info`` holds ``success`` and ``completed``
    (the goal completed this step), ``attempt_over`` (the level's attempt at its goal ended this
    step: the success, or the episode's end without one; the episode's end on the target game)
    and ``achievements`` (N, 67) of the pre-reset states, for per-level statistics.
    """
    params = EnvParams() if params is None else params
    static_params = StaticEnvParams() if static_params is None else static_params
    step_key, reset_key = jax.random.split(key)
    num_envs = action.shape[0]
    rules = slots.rules[state.env_slot]
    goal = slots.goal[state.env_slot]

    def one(k: jax.Array, s: EnvState, a: jax.Array, r: jax.Array) -> tuple[EnvState, jax.Array]:
        return rule_step(k, s, a, r, params, static_params)

    env, reward = jax.vmap(one)(jax.random.split(step_key, num_envs), state.env, action, rules)
    has_goal = goal.any(axis=1)
    met = has_goal & _goal_met(env.achievements, goal)
    # Only the step that completes the goal succeeds: the episode goes on after it.
    success = met & ~_goal_met(state.env.achievements, goal)
    done = jax.vmap(lambda s: is_game_over(s, params, static_params))(env)
    info = {
        "success": success,
        "completed": success,
        "attempt_over": success | (done & ~met),
        "achievements": env.achievements,
    }
    env = _reset_done(reset_key, env, state.env_slot, done, slots)
    obs = jax.vmap(_observe)(env, goal)
    return obs, EngineState(env=env, env_slot=state.env_slot), reward, done, info
