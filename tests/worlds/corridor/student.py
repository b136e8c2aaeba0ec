"""The corridor's student: its plug-ins of the one PPO, its trainer and its target protocol.

- the configuration is ``config.CorridorConfig`` (no JAX: a stored run reads it back cheaply);
- :class:`CorridorSlotWorld` (``dicode.student.ppo.SlotWorld``): the engine on S slots × E
  envs, each env (re)starting on a uniformly drawn instance of its slot's pool;
- :class:`FeedForward` (``dicode.student.ppo.Policy``): a small MLP actor-critic;
- :class:`CorridorTrainer` (``dicode.student.loop.SlotTrainer``): slots on the host, sent to
  the device with the same shapes whenever one changes (nothing recompiles), checkpoints;
- :class:`CorridorTargetProtocol`: greedy play on fixed target corridors; solve rate first,
  the skills (``skills.py``) under ``"skills"``.
The target game is the builder's default level (16 free cells, random ends), made on the host.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp
import numpy as np

from dicode.environment import draw_entries, slot_params, where_env
from dicode.student.bonus import BonusConfig
from dicode.student.checkpoint import load_checkpoint, save_checkpoint
from dicode.student.feedforward import FeedForwardPolicy
from dicode.student.layout import LayoutTrainer
from dicode.student.ppo import EpisodeEnd, Keys, RunnerState, SlotPPO
from dicode.student.tally import EpisodeTally, slot_tallies
from tests.worlds.corridor import engine, skills
from tests.worlds.corridor.builder import make_builder
from tests.worlds.corridor.config import CorridorConfig

#: The bonus in the corridor's units: a solve pays 1, so d = 1 (``dicode.student.bonus``).
BONUS = BonusConfig(floor=1.0, scale=2.0, least=0.1)
EVAL_SEED = 1_000_003  # the evaluation's corridors, apart from the training seeds


def target_pool(seed: int, count: int) -> dict[str, np.ndarray]:
    """``count`` target-game corridors, made with the builder on the host (no level code)."""
    rows = [make_builder(np.random.default_rng([seed, i])).to_arrays() for i in range(count)]
    return {name: np.stack([row[name] for row in rows]) for name in rows[0]}


@flax.struct.dataclass
class CorridorSlots:
    levels: engine.CorridorParams  # leaves (S, K, ...)
    pays: jax.Array  # (S,) bool: the slot's level pays the completion bonus


def _start(key: jax.Array, slots: CorridorSlots, slot_of_env: jax.Array) -> tuple[Any, Any]:
    entries = draw_entries(key, slots.levels, slot_of_env)
    levels = slot_params(slots.levels, slot_of_env, entries)
    return jax.vmap(engine.reset, in_axes=(None, 0))(key, levels)


class CorridorSlotWorld:
    environment = engine
    step_keys = 1  # the engine draws nothing; the restarts draw their instances with it

    def first_keys(self, seed: int) -> Keys:
        rng, k_net, k_env = jax.random.split(jax.random.PRNGKey(seed), 3)
        return rng, k_net, k_env

    def step_and_restart_keys(self, keys: Sequence[jax.Array]) -> tuple[jax.Array, jax.Array]:
        return keys[0], keys[0]

    def example_obs(self) -> jax.Array:
        return jnp.zeros((engine.OBS_SIZE,), jnp.float32)

    def start(self, key: jax.Array, slots: CorridorSlots, slot_of_env: jax.Array) -> Any:
        return _start(key, slots, slot_of_env)

    def restart(
        self, key: jax.Array, state: Any, which: jax.Array, slots: CorridorSlots, slot_of_env: Any
    ) -> tuple[jax.Array, Any]:
        state = where_env(which, _start(key, slots, slot_of_env)[1], state)
        return jax.vmap(engine.observe)(state), state

    def step_params(self, slots: CorridorSlots, slot_of_env: jax.Array) -> Any:
        # The step reads only the static step cap: each env carries its instance in its state.
        return slot_params(slots.levels, slot_of_env, jnp.zeros_like(slot_of_env))

    def pays(self, slots: CorridorSlots, slot_of_env: jax.Array) -> jax.Array:
        return slots.pays[slot_of_env]

    def engine_action(self, obs: Any, action: jax.Array) -> jax.Array:
        return action

    def episode_end(self, done: jax.Array, info: dict[str, jax.Array], length: Any) -> EpisodeEnd:
        return EpisodeEnd(done, info["success"], {"length": info["length"]})


class ActorCritic(nn.Module):
    hidden_size: int

    @nn.compact
    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = nn.tanh(nn.Dense(self.hidden_size)(obs))
        return nn.Dense(engine.NUM_ACTIONS)(x), nn.Dense(1)(x)[..., 0]


@functools.cache
def compiled_ppo(config: CorridorConfig) -> SlotPPO:
    """One compiled PPO per configuration (the seed is not part of the compile)."""
    policy = FeedForwardPolicy(ActorCritic(config.hidden_size))
    return SlotPPO(replace(config, seed=0), CorridorSlotWorld(), policy, BONUS)


@functools.cache
def _compiled_play(network: nn.Module, max_steps: int) -> Any:
    def play(params: Any, levels: engine.CorridorParams) -> tuple[jax.Array, jax.Array]:
        levels = replace(levels, max_steps=max_steps)
        obs, state = jax.vmap(engine.reset, in_axes=(None, 0))(jax.random.PRNGKey(0), levels)

        def turn(carry: tuple, _: Any) -> tuple[tuple, None]:
            obs, state, live, won = carry
            action = jnp.argmax(network.apply(params, obs)[0], axis=-1)
            obs, state, _, done, info = jax.vmap(engine.step, in_axes=(None, 0, 0, 0))(
                jax.random.PRNGKey(0), state, action, levels
            )
            return (obs, state, live & ~done, won | (live & info["success"])), None

        live = jnp.ones(levels.start.shape, bool)
        (_, state, _, won), _ = jax.lax.scan(turn, (obs, state, live, ~live), None, max_steps)
        return won, state.time

    return jax.jit(play)


class CorridorTargetProtocol:
    """Greedy play of ``games`` fixed target corridors (one episode each)."""

    def __init__(self, config: CorridorConfig, games: int, max_steps: int) -> None:
        self.ppo = compiled_ppo(replace(config, seed=0))
        self.corridors = target_pool(EVAL_SEED, games)
        self.levels = engine.make_slots([self.corridors], games)
        self.levels = jax.tree_util.tree_map(lambda x: x[0], self.levels)  # one "slot": (games,)
        self._play = _compiled_play(self.ppo.network, max_steps)

    def read_params(self, checkpoint: Path) -> Any:
        train = self.ppo.init_train(jax.random.PRNGKey(0))
        template = {"train": train, "rng": jax.random.PRNGKey(0), "iteration": jnp.int32(0)}
        return load_checkpoint(checkpoint, template)[0]["train"].params

    def measure(self, params: Any) -> dict[str, Any]:
        won = np.asarray(self._play(params, self.levels)[0])
        distance = np.abs(self.corridors["goal"] - self.corridors["start"])
        groups = np.asarray([skills.skill_of(int(d)) for d in distance])
        rates = {s: float(won[groups == s].mean()) for s in skills.SKILLS if (groups == s).any()}
        return {"solve_rate": float(won.mean()), "games": len(won), "skills": rates}


class CorridorTrainer(LayoutTrainer):
    """The corridor student over S slots (``SlotTrainer``); ``None`` in a slot is the target."""

    config: CorridorConfig

    def __init__(self, config: CorridorConfig, games: int, max_steps: int) -> None:
        self.config = config
        self.ppo = compiled_ppo(replace(config, seed=0))
        self.target = target_pool(config.seed, config.pool_size)
        self.protocol = CorridorTargetProtocol(config, games, max_steps)
        self.levels: list[dict[str, np.ndarray] | None] = [None] * config.num_slots
        self.slots = self._device_slots()
        self.runner: RunnerState = self.ppo.init(config.seed, self.slots)

    def _device_slots(self) -> CorridorSlots:
        pools = [self.target if level is None else level for level in self.levels]
        pays = jnp.asarray([level is not None for level in self.levels])
        slots = CorridorSlots(engine.make_slots(pools, self.config.pool_size), pays)
        return jax.device_put(slots, jax.devices()[0])

    def place(self, slot: int, pool: dict[str, np.ndarray] | None) -> None:
        self.levels[slot] = pool
        self.slots = self._device_slots()

    def iterate(self, slot_reset: np.ndarray, r_prev: float) -> list[EpisodeTally]:
        reset = jnp.asarray(slot_reset, bool)
        self.runner, stats, _ = self.ppo.iterate(
            self.runner, self.slots, reset, jnp.float32(r_prev)
        )
        return slot_tallies(stats)

    def evaluate(self) -> dict[str, Any]:
        return self.protocol.measure(self.runner.train.params)

    def _learning_state(self) -> dict[str, Any]:
        r = self.runner
        return {"train": r.train, "rng": r.rng, "iteration": r.iteration}

    def save(self, path: Path, extra: dict[str, Any]) -> None:
        save_checkpoint(path, self._learning_state(), extra)

    def load(self, path: Path) -> dict[str, Any]:
        """The learning state; every slot back on the target game, every env restarted."""
        state, extra = load_checkpoint(path, self._learning_state())
        self.levels = [None] * self.config.num_slots
        self.slots = self._device_slots()
        self.runner = self.ppo.restart(replace(self.runner, **state), self.slots)
        return extra
