"""Craftax's plug-ins of the one PPO (``dicode.student.ppo``): its slots and its memory policy.

The world (:class:`CraftaxSlotWorld`): the engine ``dicode.domains.craftax.engine`` (rule
multipliers, goals; a goal level goes on as an ordinary game after its goal) over S slots x E
envs by ``level_slots`` (finished envs restart from a drawn world of their slot's pool), the
completion bonus (``CRAFTAX_BONUS``) paid on every slot. Per-level statistics count a level's
attempt at its goal (``info["attempt_over"]``: ended by the success, or by the episode's end
without one). Observation: Craftax's symbolic observation ++ the slot's goal multi-hot (8335
floats).

The policy: ``networks.make_network``'s GRU (the Craftax paper's PPO-RNN baseline, Matthews et
al. 2024) or gated Transformer-XL (DiCode's PPO-GTrXL, Parisotto et al. 2020,
arXiv:1910.06764), run by the recurrent plug-in (``dicode.student.recurrent.RecurrentPolicy``):
the rollout carries the memory step by step, the update replays whole env sequences from the
rollout's first memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
from craftax.craftax.craftax_state import EnvState

from dicode.domains.craftax import engine, level_slots
from dicode.domains.craftax.engine import CraftaxParams
from dicode.domains.craftax.student.config import CraftaxPPOConfig
from dicode.domains.craftax.student.networks import ActorCritic, make_network
from dicode.environment import Environment
from dicode.student.bonus import BonusConfig
from dicode.student.ppo import EpisodeEnd, Keys, SlotPPO
from dicode.student.recurrent import RecurrentPolicy

#: The completion bonus in Craftax's units (``dicode.student.bonus``): the paper's d = 20,
#: k = 2, capped at the target's running mean return (≈ 4.5 at 1M steps, against the paper's
#: 20 or more), at least ε = 0.1 (a tenth of the least achievement: one health point's reward).
CRAFTAX_BONUS = BonusConfig(floor=20.0, scale=2.0, least=0.1)


class CraftaxSlotWorld:
    """Craftax on slots (``dicode.student.ppo.SlotWorld``); slots are ``CraftaxParams`` with
    leaves ``(S, K, ...)`` (``level_slots``)."""

    environment: Environment[Any, Any, Any] = engine
    step_keys = 1  # split in two: the engine's step and the restarts' draws

    def first_keys(self, seed: int) -> Keys:
        rng, k_net = jax.random.split(jax.random.PRNGKey(seed))
        rng, k_env = jax.random.split(rng)
        return rng, k_net, k_env

    def step_and_restart_keys(self, keys: Sequence[jax.Array]) -> tuple[jax.Array, jax.Array]:
        k_step, k_restart = jax.random.split(keys[0])
        return k_step, k_restart

    def example_obs(self) -> jax.Array:
        return jnp.zeros((engine.OBS_SIZE,), jnp.float32)

    def start(
        self, key: jax.Array, slots: CraftaxParams, slot_of_env: jax.Array
    ) -> tuple[jax.Array, EnvState]:
        return level_slots.reset(key, slots, slot_of_env)

    def restart(
        self,
        key: jax.Array,
        state: EnvState,
        which: jax.Array,
        slots: CraftaxParams,
        slot_of_env: jax.Array,
    ) -> tuple[jax.Array, EnvState]:
        return level_slots.restart(key, state, which, slots, slot_of_env)

    def step_params(self, slots: CraftaxParams, slot_of_env: jax.Array) -> CraftaxParams:
        return level_slots.slot_levels(slots, slot_of_env)

    def pays(self, slots: CraftaxParams, slot_of_env: jax.Array) -> jax.Array:
        # Every slot pays: the target game has no goal to complete.
        return jnp.ones(slot_of_env.shape, bool)

    def engine_action(self, obs: jax.Array, action: jax.Array) -> jax.Array:
        return action

    def episode_end(
        self, done: jax.Array, info: dict[str, jax.Array], length: jax.Array
    ) -> EpisodeEnd:
        # A level's figures run up to its goal (or the game's end); the game itself goes on.
        return EpisodeEnd(info["attempt_over"], info["success"], {"length": length})


class Trainer(SlotPPO):
    """The one PPO with Craftax's plug-ins (PPO-RNN or PPO-GTrXL), for one configuration."""

    config: CraftaxPPOConfig
    network: ActorCritic

    def __init__(self, config: CraftaxPPOConfig) -> None:
        policy = RecurrentPolicy(make_network(config, engine.NUM_ACTIONS))
        super().__init__(config, CraftaxSlotWorld(), policy, CRAFTAX_BONUS)
