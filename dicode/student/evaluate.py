"""Greedy evaluation of the student on the target game (the standard empty-board game).

The policy plays the highest-logit legal placement. Games run in parallel until each is over
or has placed ``piece_cap`` pieces; the result is lines cleared per game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.schema import target_level
from dicode.student import tetris_env as env

# Evaluation seeds of the target protocol: never used for training or tuning.
EVAL_SEEDS: tuple[int, ...] = tuple(range(1_000_000, 1_000_020))


@dataclass(frozen=True)
class EvalResult:
    """Lines and pieces per evaluation game."""

    lines: np.ndarray
    pieces: np.ndarray

    @property
    def mean_lines(self) -> float:
        return float(self.lines.mean())

    @property
    def std_lines(self) -> float:
        return float(self.lines.std())


def make_greedy_evaluator(
    network: nn.Module, piece_cap: int
) -> Callable[[Any, jnp.ndarray], tuple[jnp.ndarray, jnp.ndarray]]:
    """A jitted ``(params, game_keys) -> (lines, pieces)``, one game per key."""
    level = target_level()

    def run(params: Any, keys: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
        states = jax.vmap(lambda k: env.reset(k, level))(keys)

        def not_finished(carry: tuple) -> jnp.ndarray:
            states, t = carry
            return (t < piece_cap) & jnp.any(~states.done)

        def body(carry: tuple) -> tuple:
            states, t = carry
            obs = jax.vmap(env.observe)(states)
            logits, _ = network.apply(params, obs.board, obs.afterstates, obs.lines, obs.legal)
            action = jnp.argmax(logits, axis=-1)
            step_keys = jax.vmap(lambda k: jax.random.fold_in(k, t))(keys)
            new_states, _, _, _ = jax.vmap(env.step)(step_keys, states, action)
            # Games at the cap stop placing pieces (the engine freezes done games itself).
            at_cap = states.pieces >= piece_cap
            new_states = jax.tree_util.tree_map(
                lambda new, old: jnp.where(
                    at_cap.reshape(at_cap.shape + (1,) * (new.ndim - 1)), old, new
                ),
                new_states,
                states,
            )
            return new_states, t + 1

        states, _ = jax.lax.while_loop(not_finished, body, (states, jnp.int32(0)))
        return states.lines, states.pieces

    return jax.jit(run)


def evaluate_greedy(
    network: nn.Module,
    params: Any,
    seeds: Sequence[int] = EVAL_SEEDS,
    piece_cap: int = 1000,
    evaluator: Callable[[Any, jnp.ndarray], tuple[jnp.ndarray, jnp.ndarray]] | None = None,
) -> EvalResult:
    """Lines per game of the greedy policy on the target game, one game per seed."""
    run = evaluator or make_greedy_evaluator(network, piece_cap)
    keys = jnp.stack([jax.random.PRNGKey(s) for s in seeds])
    lines, pieces = run(params, keys)
    return EvalResult(np.asarray(lines), np.asarray(pieces))
