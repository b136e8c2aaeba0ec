"""The one PPO (``dicode.student.ppo``) on a toy world: a feed-forward and a recurrent policy
train through the same ``SlotPPO``, slot swaps never recompile, ``learn=False`` only measures,
and a restarted slot's memory is forgotten."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from dicode.environment import draw_entries, slot_params, where_env
from dicode.student.bonus import BonusConfig
from dicode.student.feedforward import FeedForwardPolicy
from dicode.student.layout import SlotLayout
from dicode.student.ppo import EpisodeEnd, Keys, SlotPPO
from dicode.student.recurrent import RecurrentPolicy, ResettingGRU

EPISODE = 4  # steps of a toy episode


@flax.struct.dataclass
class ToyParams:
    goal: jax.Array  # the rewarded action, 0 or 1


@flax.struct.dataclass
class ToyState:
    t: jax.Array
    goal: jax.Array


class ToyEnv:
    """Pays 1 for the goal's action, shown in the observation; EPISODE steps an episode."""

    @staticmethod
    def observe(state: ToyState) -> jax.Array:
        return jax.nn.one_hot(state.goal, 2)

    def reset(self, key: jax.Array, params: ToyParams) -> tuple[jax.Array, ToyState]:
        state = ToyState(jnp.int32(0), params.goal)
        return self.observe(state), state

    def step(
        self, key: jax.Array, state: ToyState, action: jax.Array, params: ToyParams
    ) -> tuple[jax.Array, ToyState, jax.Array, jax.Array, dict[str, jax.Array]]:
        hit = action == state.goal
        state = ToyState(state.t + 1, state.goal)
        done = state.t >= EPISODE
        info = {"success": hit, "completed": hit}
        return self.observe(state), state, hit.astype(jnp.float32), done, info


def _start(key: jax.Array, slots: ToyParams, slot_of_env: jax.Array) -> tuple[jax.Array, ToyState]:
    levels = slot_params(slots, slot_of_env, draw_entries(key, slots, slot_of_env))
    return jax.vmap(ToyEnv().reset, in_axes=(None, 0))(key, levels)


class ToySlotWorld:
    environment = ToyEnv()
    step_keys = 1

    def first_keys(self, seed: int) -> Keys:
        rng, k_net, k_env = jax.random.split(jax.random.PRNGKey(seed), 3)
        return rng, k_net, k_env

    def step_and_restart_keys(self, keys: Sequence[jax.Array]) -> tuple[jax.Array, jax.Array]:
        return keys[0], keys[0]

    def example_obs(self) -> jax.Array:
        return jnp.zeros((2,), jnp.float32)

    def start(self, key: jax.Array, slots: ToyParams, slot_of_env: jax.Array) -> Any:
        return _start(key, slots, slot_of_env)

    def restart(
        self, key: jax.Array, state: ToyState, which: jax.Array, slots: ToyParams, slot_of_env: Any
    ) -> tuple[jax.Array, ToyState]:
        state = where_env(which, _start(key, slots, slot_of_env)[1], state)
        return jax.vmap(ToyEnv.observe)(state), state

    def step_params(self, slots: ToyParams, slot_of_env: jax.Array) -> ToyParams:
        return slot_params(slots, slot_of_env, jnp.zeros_like(slot_of_env))

    def pays(self, slots: ToyParams, slot_of_env: jax.Array) -> jax.Array:
        return jnp.zeros(slot_of_env.shape, bool)

    def engine_action(self, obs: jax.Array, action: jax.Array) -> jax.Array:
        return action

    def episode_end(self, done: jax.Array, info: dict[str, jax.Array], length: Any) -> EpisodeEnd:
        return EpisodeEnd(done, done & info["success"], {"length": length})


class ToyMLP(nn.Module):
    @nn.compact
    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = nn.relu(nn.Dense(8)(obs))
        return nn.Dense(2)(x), nn.Dense(1)(x)[..., 0]


class ToyGRU(nn.Module):
    @nn.compact
    def __call__(self, hidden: jax.Array, obs: jax.Array, resets: jax.Array) -> tuple:
        hidden, x = ResettingGRU(8)(hidden, (obs, resets))
        return hidden, nn.Dense(2)(x), nn.Dense(1)(x)[..., 0]

    def initial_hidden(self, num_envs: int) -> jax.Array:
        return jnp.zeros((num_envs, 8), jnp.float32)


@dataclass(frozen=True)
class ToyConfig(SlotLayout):
    num_slots: int = 2
    envs_per_slot: int = 4
    num_steps: int = 8
    gamma: float = 0.9
    gae_lambda: float = 0.9
    learning_rate: float = 3e-2
    anneal_lr: bool = False
    num_iterations: int = 1
    update_epochs: int = 2
    num_minibatches: int = 2
    clip_eps: float = 0.2
    vf_coef: float = 0.5
    ent_coef: float = 0.0
    max_grad_norm: float = 0.5


CONFIG = ToyConfig()


def _slots(goal_of_slot: Sequence[int]) -> ToyParams:
    goals = jnp.asarray([[g, g] for g in goal_of_slot], jnp.int32)  # (S, K = 2)
    return ToyParams(goals)


@pytest.fixture(scope="module", params=["feed_forward", "recurrent"])
def ppo(request: pytest.FixtureRequest) -> SlotPPO:
    policy: Any = (
        FeedForwardPolicy(ToyMLP())
        if request.param == "feed_forward"
        else RecurrentPolicy(ToyGRU())
    )
    return SlotPPO(CONFIG, ToySlotWorld(), policy, BonusConfig())


def test_slot_swaps_and_learn_flags_share_one_compile(ppo: SlotPPO) -> None:
    runner = ppo.init(0, _slots([0, 1]))
    before = ppo.trace_count
    swaps = [
        ([0, 1], [False, False], True),
        ([1, 1], [False, True], False),
        ([1, 0], [True, True], True),
    ]
    for goals, reset, learn in swaps:
        runner, _, _ = ppo.iterate(
            runner, _slots(goals), jnp.asarray(reset), jnp.float32(0), jnp.asarray(learn)
        )
    assert ppo.trace_count - before == 1
    assert int(runner.iteration) == len(swaps)


def test_measuring_rollouts_leave_the_learning_state_alone(ppo: SlotPPO) -> None:
    runner = ppo.init(1, _slots([0, 1]))
    after, stats, metrics = ppo.iterate(
        runner, _slots([0, 1]), jnp.zeros(2, bool), jnp.float32(0), jnp.asarray(False)
    )
    same = jax.tree_util.tree_map(np.array_equal, runner.train, after.train)
    assert all(jax.tree_util.tree_leaves(same))
    assert int(stats.episodes.sum()) == CONFIG.num_envs * CONFIG.num_steps // EPISODE
    assert metrics["pvl"].shape == metrics["return_max"].shape == (CONFIG.num_envs,)


def test_both_policies_learn_the_toy_world(ppo: SlotPPO) -> None:
    slots = _slots([0, 1])
    runner = ppo.init(2, slots)

    def hit_rate(stats: Any) -> float:
        return float(stats.return_sum.sum()) / (float(stats.episodes.sum()) * EPISODE)

    rates = []
    for _ in range(30):
        runner, stats, _ = ppo.iterate(
            runner, slots, jnp.zeros(2, bool), jnp.float32(0), jnp.asarray(True)
        )
        rates.append(hit_rate(stats))
    assert np.mean(rates[-5:]) > 0.9 > np.mean(rates[:2])
