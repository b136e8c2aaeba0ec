"""The Craftax engine dicode trains on: one Craftax-Symbolic env under a level's rule
multipliers and goal, as pure functions (``dicode.environment``'s interface).

* **Params.** :class:`CraftaxParams` is one level instance: a start world (one entry of the
  level's pool), the rule vector and the goal multi-hot, plus Craftax's own settings (static).
  ``reset`` starts from the start world itself (the key is the interface's: nothing is
  drawn); no world is generated during training. Level slots — S pools stacked, swapped
  without recompiling, finished envs restarted from their slot — are ``level_slots.py``.
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
  marks the success, and the student's wrapper adds DiCode's completion bonus on it
  (``dicode.student.bonus.CompletionBonus``).
* **After the goal** the episode goes on as an ordinary game (the goal leaves the observation)
  until it ends as Craftax's do: whole games, where the day–night cycle and the crafting chain
  are learnt, stay in the mix. ``info["attempt_over"]`` marks where the level's attempt at its
  goal ended — the success, or the episode's end without one — which per-level statistics
  count as the level's episode.
* **Observation.** Craftax's symbolic observation (8268) followed by the goal multi-hot (67),
  zeros once the goal is met.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
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

from dicode.domains.craftax.catalog import MOB_CLASSES, NUM_ACHIEVEMENTS
from dicode.domains.craftax.rules import RULE_NAMES

OBS_SIZE = 8268 + NUM_ACHIEVEMENTS
NUM_ACTIONS = len(Action)
_R = {name: i for i, name in enumerate(RULE_NAMES)}


@struct.dataclass
class CraftaxParams:
    """One level instance: a start world, the rules (NUM_RULES,) and the goal (67,) bool;
    Craftax's own settings are static (a change is a new compile)."""

    world: EnvState
    rules: jax.Array
    goal: jax.Array
    settings: EnvParams = struct.field(pytree_node=False, default=EnvParams())
    static: StaticEnvParams = struct.field(pytree_node=False, default=StaticEnvParams())


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


def observe(state: EnvState, params: CraftaxParams) -> jax.Array:
    """Craftax's symbolic observation ++ the goal, zeros once it is met (the rest of the
    episode is an ordinary game)."""
    shown = params.goal & ~_goal_met(state.achievements, params.goal)
    return jnp.concatenate([render_craftax_symbolic(state), shown.astype(jnp.float32)])


def reset(key: jax.Array, params: CraftaxParams) -> tuple[jax.Array, EnvState]:
    """Start from the params' world (``key`` unused: the world is the whole start)."""
    return observe(params.world, params), params.world


def step(
    key: jax.Array, state: EnvState, action: jax.Array, params: CraftaxParams
) -> tuple[jax.Array, EnvState, jax.Array, jax.Array, dict[str, jax.Array]]:
    """One step under the params' rules, no reset. ``info``: ``success`` and ``completed``
    (the goal completed this step), ``attempt_over`` (the level's attempt at its goal ended
    this step: the success, or the episode's end without one; the episode's end on the target
    game) and ``achievements`` (67,) for per-level statistics."""
    goal = params.goal
    env, reward = rule_step(key, state, action, params.rules, params.settings, params.static)
    met = goal.any() & _goal_met(env.achievements, goal)
    # Only the step that completes the goal succeeds: the episode goes on after it.
    success = met & ~_goal_met(state.achievements, goal)
    done = is_game_over(env, params.settings, params.static)
    info = {
        "success": success,
        "completed": success,
        "attempt_over": success | (done & ~met),
        "achievements": env.achievements,
    }
    return observe(env, params), env, reward, done, info
