"""Greedy evaluation of the student on the target protocol (``docs/evaluation.md``).

Same games as ``dicode.domains.tetris.evaluate.play`` (game ``i`` of seed ``S`` uses
``fold_in(key(S), i)``, split into reset and play keys; step ``t`` folds ``t`` into the play
key and splits it into a policy and an engine key), but the network parameters are an argument
of one jitted function, so evaluating every few iterations compiles once. The greedy policy
plays the legal placement with the highest logit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris import engine
from dicode.domains.tetris.evaluate import DEFAULT_GAMES, DEFAULT_SEED
from dicode.domains.tetris.placements import afterstates

Evaluator = Callable[[Any], tuple[jnp.ndarray, jnp.ndarray]]


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
        """Sample standard deviation over the games (0 for a single game)."""
        return float(self.lines.std(ddof=1)) if self.lines.size > 1 else 0.0


def greedy_action(network: nn.Module, params: Any, board: jnp.ndarray, piece: jnp.ndarray) -> Any:
    """The legal placement whose afterstate scores highest."""
    after = afterstates(board, piece)
    logits, _ = network.apply(params, board, after.boards, after.lines, after.legal)
    return jnp.argmax(logits)


def make_greedy_evaluator(
    network: nn.Module,
    games: int = DEFAULT_GAMES,
    max_pieces: int = 1_000,
    seed: int = DEFAULT_SEED,
) -> Evaluator:
    """A jitted ``params -> (lines, pieces)`` over the protocol's ``games`` games."""
    rules = engine.EnvParams()
    root = jax.random.key(seed)
    game_keys = jax.vmap(lambda i: jax.random.fold_in(root, i))(jnp.arange(games))
    reset_keys, play_keys = jnp.moveaxis(jax.vmap(jax.random.split)(game_keys), 1, 0)

    def run(params: Any) -> tuple[jnp.ndarray, jnp.ndarray]:
        def one_step(play_key: jax.Array, state: engine.EnvState, t: jnp.ndarray) -> Any:
            _, key_env = jax.random.split(jax.random.fold_in(play_key, t))
            action = greedy_action(network, params, state.board, state.piece)
            return engine.step(key_env, state, action, rules)[1]

        def still_playing(carry: tuple) -> jnp.ndarray:
            t, states = carry
            return (t < max_pieces) & jnp.any(~states.done)

        def advance(carry: tuple) -> tuple:
            t, states = carry
            return t + 1, jax.vmap(one_step, in_axes=(0, 0, None))(play_keys, states, t)

        _, states = jax.vmap(lambda k: engine.reset(k, rules))(reset_keys)
        _, states = jax.lax.while_loop(still_playing, advance, (jnp.int32(0), states))
        return states.lines, states.pieces

    return jax.jit(run)


def evaluate_greedy(evaluator: Evaluator, params: Any) -> EvalResult:
    """Lines and pieces per game of the greedy policy."""
    lines, pieces = evaluator(params)
    return EvalResult(np.asarray(lines), np.asarray(pieces))
