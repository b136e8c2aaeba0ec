"""Tetris's plug-ins of the one PPO (``dicode.student.ppo``): its slots and its afterstate policy.

The world (:class:`TetrisSlotWorld`): ``slots`` is a :class:`TetrisLevel` whose leaves carry two
leading axes ``(S, K)``; each env (re)starts from a uniformly drawn entry of its slot's pool, the
engine reads the level from its state, every slot pays the completion bonus on the placement
that meets a goal (``bonus_config``: in the reward's units), and a training game is cut after
``train_piece_cap`` pieces (bootstrapped from the value of where it stopped).

The policy (:class:`AfterstatePolicy`): feed-forward; it scores every candidate placement by
the board it leads to (``networks.AfterstateActorCritic``, observations from ``env``). With the
detached lookahead the rollout keeps every candidate's value and the update reads them as
data. No value clipping: it slows the critic, which here also drives the policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import jax
import jax.numpy as jnp

from dicode.domains.tetris import engine
from dicode.domains.tetris.schema import TetrisLevel, target_level
from dicode.domains.tetris.student import env
from dicode.domains.tetris.student.config import PPOConfig
from dicode.domains.tetris.student.networks import AfterstateActorCritic
from dicode.environment import Environment, draw_entries, slot_params, where_env
from dicode.student.bonus import BonusConfig
from dicode.student.ppo import EpisodeEnd, Keys, SlotPPO, Step, TimeLimit


def make_network(config: PPOConfig) -> AfterstateActorCritic:
    return AfterstateActorCritic(
        column_features=config.column_features,
        row_features=config.row_features,
        hidden=config.hidden,
        column_layers=config.column_layers,
        lookahead=config.lookahead,
        gamma=config.gamma,
        init_beta=config.init_beta,
        context_size=env.CONTEXT_SIZE if config.level_context else 0,
        board_features=config.board_features,
    )


def bonus_config(config: PPOConfig) -> BonusConfig:
    """The completion bonus's constants of a Tetris configuration (``PPOConfig.bonus_*``)."""
    return BonusConfig(
        config.bonus_floor, config.bonus_scale, config.bonus_least, config.bonus_paper
    )


def _reset_states(key: jax.Array, slots: TetrisLevel, slot_of_env: jax.Array) -> Any:
    """Reset every environment from a uniformly drawn entry of its slot's pool."""
    k_pick, k_reset = jax.random.split(key)
    levels = slot_params(slots, slot_of_env, draw_entries(k_pick, slots, slot_of_env))
    return jax.vmap(env.reset)(jax.random.split(k_reset, slot_of_env.shape[0]), levels)


class TetrisSlotWorld:
    """Tetris on slots (``dicode.student.ppo.SlotWorld``)."""

    environment: Environment[Any, Any, Any] = engine
    step_keys = 2  # the engine step's and the restarts'

    def first_keys(self, seed: int) -> Keys:
        rng, k_net, k_env = jax.random.split(jax.random.PRNGKey(seed), 3)
        return rng, k_net, k_env

    def step_and_restart_keys(self, keys: Sequence[jax.Array]) -> tuple[jax.Array, jax.Array]:
        return keys[0], keys[1]

    def example_obs(self) -> env.Obs:
        shapes = jax.eval_shape(
            lambda: env.observe(env.reset(jax.random.PRNGKey(0), target_level()))
        )
        return cast(env.Obs, jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), shapes))

    def start(
        self, key: jax.Array, slots: TetrisLevel, slot_of_env: jax.Array
    ) -> tuple[env.Obs, engine.EnvState]:
        states = _reset_states(key, slots, slot_of_env)
        return jax.vmap(env.observe)(states), states

    def restart(
        self,
        key: jax.Array,
        state: engine.EnvState,
        which: jax.Array,
        slots: TetrisLevel,
        slot_of_env: jax.Array,
    ) -> tuple[env.Obs, engine.EnvState]:
        state = where_env(which, _reset_states(key, slots, slot_of_env), state)
        return jax.vmap(env.observe)(state), state

    def step_params(self, slots: TetrisLevel, slot_of_env: jax.Array) -> engine.EnvParams:
        return env.PARAMS  # the step reads the level from the state

    def pays(self, slots: TetrisLevel, slot_of_env: jax.Array) -> jax.Array:
        return jnp.ones(slot_of_env.shape, bool)

    def engine_action(self, obs: env.Obs, action: jax.Array) -> jax.Array:
        return obs.placement[jnp.arange(action.shape[0]), action]

    def episode_end(
        self, done: jax.Array, info: dict[str, jax.Array], length: jax.Array
    ) -> EpisodeEnd:
        sums = {"lines": info["total_lines"].astype(jnp.int32), "pieces": length}
        return EpisodeEnd(done, info["completed"], sums)


class AfterstatePolicy:
    """The afterstate scorer as the PPO's feed-forward policy (``dicode.student.ppo.Policy``)."""

    recurrent = False
    clip_value = False

    def __init__(self, config: PPOConfig) -> None:
        self.network = make_network(config)
        self.detach_lookahead = config.detach_lookahead

    def init(self, key: jax.Array, example_obs: env.Obs, num_envs: int) -> Any:
        o = example_obs
        return self.network.init(
            key, o.board, o.afterstates, o.lines, o.legal, o.context, o.after_context
        )

    def initial_hidden(self, num_envs: int) -> tuple[()]:
        return ()

    def policy(self, params: Any, obs: env.Obs) -> tuple[jax.Array, jax.Array]:
        """Masked logits and values for a batch of observations."""
        out = self.network.apply(
            params, obs.board, obs.afterstates, obs.lines, obs.legal, obs.context,
            obs.after_context,
        )  # fmt: skip
        return cast(tuple[jax.Array, jax.Array], out)

    def value(self, params: Any, board: jax.Array, context: jax.Array) -> jax.Array:
        return cast(jax.Array, self.network.apply(params, board, context, method="value"))

    def _logits_from(self, params: Any, after_v: jax.Array, obs: env.Obs) -> jax.Array:
        return cast(
            jax.Array,
            self.network.apply(params, after_v, obs.lines, obs.legal, method="lookahead_logits"),
        )

    def act(
        self, params: Any, hidden: tuple[()], obs: env.Obs, starts: jax.Array, pays: jax.Array
    ) -> tuple[tuple[()], jax.Array, jax.Array, jax.Array]:
        """Logits, value and every candidate's value (zeros unless detached)."""
        if not self.detach_lookahead:
            logits, value = self.policy(params, obs)
            return hidden, logits, value, jnp.zeros(obs.legal.shape, jnp.float32)
        after_v = self.value(params, obs.afterstates, obs.after_context)
        value = self.value(params, obs.board, obs.context)
        return hidden, self._logits_from(params, after_v, obs), value, after_v

    def last_value(
        self, params: Any, hidden: tuple[()], obs: env.Obs, starts: jax.Array, pays: jax.Array
    ) -> jax.Array:
        return self.value(params, obs.board, obs.context)  # candidates not needed here

    def replay(self, params: Any, hidden: None, steps: Step) -> tuple[jax.Array, jax.Array]:
        if self.detach_lookahead:
            # The candidates' values are data here: only beta and the line rewards move.
            logits = self._logits_from(params, steps.extra, steps.obs)
            return logits, self.value(params, steps.obs.board, steps.obs.context)
        return self.policy(params, steps.obs)

    def legal(self, obs: env.Obs) -> jax.Array:
        return obs.legal


class Trainer(SlotPPO):
    """The one PPO with Tetris's plug-ins, for one configuration."""

    config: PPOConfig
    network: AfterstateActorCritic

    def __init__(self, config: PPOConfig) -> None:
        policy = AfterstatePolicy(config)

        def stop_value(params: Any, state: engine.EnvState) -> jax.Array:
            return policy.value(params, state.board, jax.vmap(env.state_context)(state))

        super().__init__(
            config,
            TetrisSlotWorld(),
            policy,
            bonus_config(config),
            reward_scale=config.reward_scale,
            time_limit=TimeLimit(config.train_piece_cap, stop_value),
        )
