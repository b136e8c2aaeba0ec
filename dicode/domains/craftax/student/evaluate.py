"""Evaluation on the real Craftax-Symbolic game, as in the Craftax paper, scaled to a CPU.

Protocol: ``num_envs`` games of Craftax's own ``CraftaxSymbolicEnvNoAutoReset`` (not the pool
engine) from the fixed key ``seed``: game i resets with ``fold_in(key(seed), i)`` split into a
reset and a play key; step t folds t into the play key and splits it into a policy and an
environment key. Each game's FIRST episode is played to its end or to ``max_steps`` (default
10,000; Craftax 1.6.1's own limit, ``EnvParams.max_timesteps``, is 100,000). The policy samples
its actions (stochastic, as the paper's reported returns are) unless ``greedy``; its
observation is the symbolic observation ++ an all-zero goal (the target game has none).
Reported: mean return, % of the maximum return 226 (every achievement once, 1/3/5/8 points),
and each achievement's success rate (share of episodes that unlocked it).

The jitted function takes the parameters as an argument, so periodic evaluation compiles once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from craftax.craftax.envs.craftax_symbolic_env import CraftaxSymbolicEnvNoAutoReset

from dicode.domains.craftax.catalog import ACHIEVEMENT_NAMES, MAX_RETURN, NUM_ACHIEVEMENTS
from dicode.domains.craftax.state_codec import craftax_reset_state
from dicode.domains.craftax.student.config import EVAL_ENVS, EVAL_MAX_STEPS, EVAL_SEED
from dicode.domains.craftax.student.networks import ActorCritic, apply_policy


@dataclass(frozen=True)
class EvalResult:
    """First episode of every evaluation game."""

    returns: np.ndarray  # (N,) Craftax return (achievement points + 0.1 * health change)
    lengths: np.ndarray  # (N,) steps played
    finished: np.ndarray  # (N,) bool: the episode ended before the step cap
    achievements: np.ndarray  # (N, 67) bool: unlocked during the episode

    @property
    def mean_return(self) -> float:
        return float(self.returns.mean())

    @property
    def std_return(self) -> float:
        """Sample standard deviation over the games (0 for a single game)."""
        return float(self.returns.std(ddof=1)) if self.returns.size > 1 else 0.0

    @property
    def percent_of_max(self) -> float:
        """Mean return as a percentage of the maximum return (226)."""
        return 100.0 * self.mean_return / MAX_RETURN

    @property
    def success_rates(self) -> dict[str, float]:
        """Share of episodes that unlocked each of the 67 achievements."""
        rates = self.achievements.mean(axis=0)
        return {name: float(rates[i]) for i, name in enumerate(ACHIEVEMENT_NAMES)}


class CraftaxEvaluator:
    """``evaluator(params) -> EvalResult``; the start states are made once, here."""

    def __init__(
        self,
        network: ActorCritic,
        num_envs: int = EVAL_ENVS,
        max_steps: int = EVAL_MAX_STEPS,
        seed: int = EVAL_SEED,
        greedy: bool = False,
    ) -> None:
        env = CraftaxSymbolicEnvNoAutoReset()
        env_params = env.default_params
        root = jax.random.PRNGKey(seed)
        games = [jax.random.split(jax.random.fold_in(root, i)) for i in range(num_envs)]
        starts = [craftax_reset_state(reset_key) for reset_key, _ in games]
        self._states = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *starts)
        self._play_keys = jnp.stack([play_key for _, play_key in games])
        no_goal = jnp.zeros((num_envs, NUM_ACHIEVEMENTS), jnp.float32)

        def observe(states: Any) -> jax.Array:
            return jnp.concatenate([jax.vmap(env.get_obs)(states), no_goal], axis=1)

        def run(params: Any, states: Any, play_keys: jax.Array) -> tuple[jax.Array, ...]:
            no_reset = jnp.zeros((1, num_envs), bool)

            def still_playing(carry: tuple) -> jax.Array:
                t, live = carry[0], carry[3]
                return (t < max_steps) & live.any()

            def advance(carry: tuple) -> tuple:
                t, states, hidden, live, ret, length, achieved = carry
                keys = jax.vmap(lambda k: jax.random.split(jax.random.fold_in(k, t)))(play_keys)
                obs = observe(states)[None]
                hidden, logits, _ = apply_policy(network, params, hidden, obs, no_reset)
                if greedy:
                    action = jnp.argmax(logits[0], axis=-1)
                else:
                    action = jax.vmap(jax.random.categorical)(keys[:, 0], logits[0])
                _, states, reward, done, _ = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(
                    keys[:, 1], states, action, env_params
                )
                ret = ret + jnp.where(live, reward, 0.0)
                length = length + live
                achieved = jnp.where(live[:, None], states.achievements, achieved)
                return t + 1, states, hidden, live & ~done, ret, length, achieved

            zeros = jnp.zeros((num_envs,))
            carry = (
                jnp.int32(0),
                states,
                network.initial_hidden(num_envs),
                jnp.ones((num_envs,), bool),
                zeros,
                zeros.astype(jnp.int32),
                states.achievements,
            )
            _, _, _, live, ret, length, achieved = jax.lax.while_loop(still_playing, advance, carry)
            return ret, length, ~live, achieved

        self._run = jax.jit(run)

    def __call__(self, params: Any) -> EvalResult:
        ret, length, finished, achieved = jax.device_get(
            self._run(params, self._states, self._play_keys)
        )
        return EvalResult(
            returns=np.asarray(ret),
            lengths=np.asarray(length),
            finished=np.asarray(finished),
            achievements=np.asarray(achieved, bool),
        )
