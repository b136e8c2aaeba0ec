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
from dicode.domains.tetris.skills import MIDGAME_MARKS, count_holes, skill_figures, stack_height

Evaluator = Callable[[Any], dict[str, jnp.ndarray]]


@dataclass(frozen=True)
class EvalResult:
    """Per evaluation game: lines, pieces, how it ended, its clears and its stack over time."""

    lines: np.ndarray  # (G,)
    pieces: np.ndarray  # (G,)
    topped_out: np.ndarray  # (G,) bool: ended by a piece that could not enter (not the cap)
    clears: np.ndarray  # (G, 5): clear events by rows cleared at once (column 0 unused)
    heights: np.ndarray  # (G, T): stack height after every piece
    holes: np.ndarray  # (G, T): holes after every piece
    boards: np.ndarray  # (G, M, H, W) bool: the board after each of ``MIDGAME_MARKS`` pieces

    @property
    def mean_lines(self) -> float:
        return float(self.lines.mean())

    @property
    def std_lines(self) -> float:
        """Sample standard deviation over the games (0 for a single game)."""
        return float(self.lines.std(ddof=1)) if self.lines.size > 1 else 0.0

    def figures(self, cap: int) -> dict[str, Any]:
        """The protocol's figures, lines first, then the skill profile (``tetris.skills``)."""
        head = {
            "mean_lines": self.mean_lines,
            "std_lines": self.std_lines,
            "mean_pieces": float(self.pieces.mean()),
        }
        return head | skill_figures(
            self.pieces, self.topped_out, self.clears, self.heights, self.holes, cap, self.boards
        )


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
    """A jitted ``params -> per-game arrays`` over the protocol's ``games`` games."""
    rules = engine.EnvParams()
    root = jax.random.key(seed)
    game_keys = jax.vmap(lambda i: jax.random.fold_in(root, i))(jnp.arange(games))
    reset_keys, play_keys = jnp.moveaxis(jax.vmap(jax.random.split)(game_keys), 1, 0)
    everyone = jnp.arange(games)
    marks = jnp.asarray([m for m in MIDGAME_MARKS if m <= max_pieces], jnp.int32)

    def run(params: Any) -> dict[str, jnp.ndarray]:
        def one_step(play_key: jax.Array, state: engine.EnvState, t: jnp.ndarray) -> Any:
            _, key_env = jax.random.split(jax.random.fold_in(play_key, t))
            action = greedy_action(network, params, state.board, state.piece)
            _, state, _, _, info = engine.step(key_env, state, action, rules)
            return state, info["lines"]

        def still_playing(carry: tuple) -> jnp.ndarray:
            t, states = carry[0], carry[1]
            return (t < max_pieces) & jnp.any(~states.done)

        def advance(carry: tuple) -> tuple:
            t, states, clears, heights, holes, boards = carry
            states, cleared = jax.vmap(one_step, in_axes=(0, 0, None))(play_keys, states, t)
            clears = clears.at[everyone, cleared].add(1)
            heights = heights.at[:, t].set(jax.vmap(stack_height)(states.board))
            holes = holes.at[:, t].set(jax.vmap(count_holes)(states.board))
            # The board after t + 1 pieces, where that is a mid-game mark.
            hit = (marks == t + 1)[None, :, None, None]
            boards = jnp.where(hit, states.board[:, None] > 0, boards)
            return t + 1, states, clears, heights, holes, boards

        _, states = jax.vmap(lambda k: engine.reset(k, rules))(reset_keys)
        history = jnp.zeros((games, max_pieces), jnp.int32)
        boards = jnp.zeros((games, marks.shape[0], *states.board.shape[1:]), bool)
        start = (jnp.int32(0), states, jnp.zeros((games, 5), jnp.int32), history, history, boards)
        _, states, clears, heights, holes, boards = jax.lax.while_loop(
            still_playing, advance, start
        )
        return {
            "lines": states.lines,
            "pieces": states.pieces,
            "topped_out": states.game_over,
            "clears": clears,
            "heights": heights,
            "holes": holes,
            "boards": boards,
        }

    return jax.jit(run)


def evaluate_greedy(evaluator: Evaluator, params: Any) -> EvalResult:
    """Per-game results of the greedy policy."""
    out = {name: np.asarray(value) for name, value in evaluator(params).items()}
    return EvalResult(**out)
