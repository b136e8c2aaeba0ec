"""The maze's plug-ins of the one PPO (``dicode.student.ppo``): its slots and its GRU policy.

The world (:class:`MazeSlotWorld`): the engine ``dicode.domains.maze.engine`` vmapped over S
slots × E envs, each env (re)starting from a uniformly drawn layout of its slot's pool
(:class:`MazeSlots`), the completion bonus (``MAZE_BONUS``) paid on the slots whose level pays
it. The policy: ``networks.MazeActorCritic`` (a GRU; its critic reads whether the slot pays),
run by the recurrent plug-in (``dicode.student.recurrent.RecurrentPolicy``). Robust PLR
(``ued.py``) passes ``learn=False`` for its measuring rollouts and reads the PPO's per-env level
scores (``pvl``, ``value_mean``, ``return_max``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp

from dicode.domains.maze import engine
from dicode.domains.maze.student.config import MazePPOConfig
from dicode.domains.maze.student.networks import MazeActorCritic
from dicode.environment import Environment, draw_entries, slot_params, where_env
from dicode.student.bonus import BonusConfig
from dicode.student.ppo import EpisodeEnd, Keys, SlotPPO
from dicode.student.recurrent import RecurrentPolicy

#: The completion bonus in the maze's reward units (``dicode.student.bonus``): the paper's
#: d = 1 (the most a maze episode returns; its d = 20 is in Craftax's units) and k = 2, capped
#: at the target's running mean return (≤ 1), at least ε = 0.1 (the least a solve pays).
#: Measured before the cap (2 slots x 32 envs, 500k steps, target slot DR + one bonus-paying
#: slot of DR mazes): d = 20 held the target's DR solve rate at 0.48 and the held-out rate at
#: 0.01, d = 1 reached 0.86 / 0.30, the same as without a bonus (0.90 / 0.25); the 20x larger
#: rewards swamp the value loss and, through the gradient-norm clip, the policy gradient.
MAZE_BONUS = BonusConfig(floor=1.0, scale=2.0, least=0.1)


@flax.struct.dataclass
class MazeSlots:
    """S level slots: pools of K layouts (leaves ``(S, K, ...)``) and whether each slot's level
    pays the completion bonus."""

    levels: engine.MazeParams
    pays_bonus: jax.Array  # (S,) bool


def _start(
    key: jax.Array, slots: MazeSlots, slot_of_env: jax.Array
) -> tuple[jax.Array, engine.MazeState]:
    """Every env's start on a uniformly drawn layout of its slot's pool. The maze's reset draws
    nothing (the drawn layout is the whole start), so the key only draws the layouts."""
    entries = draw_entries(key, slots.levels, slot_of_env)
    levels = slot_params(slots.levels, slot_of_env, entries)
    return jax.vmap(engine.reset, in_axes=(None, 0))(key, levels)


class MazeSlotWorld:
    """The maze on slots (``dicode.student.ppo.SlotWorld``)."""

    environment: Environment[Any, Any, Any] = engine
    step_keys = 1  # the engine draws nothing: the restarts draw their layouts with it

    def first_keys(self, seed: int) -> Keys:
        rng, k_net = jax.random.split(jax.random.PRNGKey(seed))
        rng, k_env = jax.random.split(rng)
        return rng, k_net, k_env

    def step_and_restart_keys(self, keys: Sequence[jax.Array]) -> tuple[jax.Array, jax.Array]:
        return keys[0], keys[0]

    def example_obs(self) -> jax.Array:
        return jnp.zeros((engine.OBS_SIZE,), jnp.float32)

    def start(
        self, key: jax.Array, slots: MazeSlots, slot_of_env: jax.Array
    ) -> tuple[jax.Array, engine.MazeState]:
        return _start(key, slots, slot_of_env)

    def restart(
        self,
        key: jax.Array,
        state: engine.MazeState,
        which: jax.Array,
        slots: MazeSlots,
        slot_of_env: jax.Array,
    ) -> tuple[jax.Array, engine.MazeState]:
        state = where_env(which, _start(key, slots, slot_of_env)[1], state)
        return jax.vmap(engine.observe)(state), state

    def step_params(self, slots: MazeSlots, slot_of_env: jax.Array) -> engine.MazeParams:
        # The step reads only the params' static step cap (each env carries its own layout).
        return slot_params(slots.levels, slot_of_env, jnp.zeros_like(slot_of_env))

    def pays(self, slots: MazeSlots, slot_of_env: jax.Array) -> jax.Array:
        return slots.pays_bonus[slot_of_env]

    def engine_action(self, obs: jax.Array, action: jax.Array) -> jax.Array:
        return action

    def episode_end(
        self, done: jax.Array, info: dict[str, jax.Array], length: jax.Array
    ) -> EpisodeEnd:
        return EpisodeEnd(done, info["success"], {"length": info["length"]})


class Trainer(SlotPPO):
    """The one PPO with the maze's plug-ins, for one configuration."""

    config: MazePPOConfig
    network: MazeActorCritic

    def __init__(self, config: MazePPOConfig) -> None:
        network = MazeActorCritic(engine.NUM_ACTIONS, config.embed_size, config.hidden_size)
        policy = RecurrentPolicy(network, critic_reads_pays=True)
        super().__init__(config, MazeSlotWorld(), policy, MAZE_BONUS)
