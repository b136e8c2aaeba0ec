"""Engine rollouts for level validation: play every pool instance in the real engine.

A random policy and a heuristic planner each play one game per instance for up to ``steps``
pieces, all instances at once (vmap) in one compiled ``lax.scan``. The function is compiled
once per pool size and reused for every level. Reported: how many instances are solved or
blocked at reset (reasons to reject), and difficulty estimates — success rates and mean lines
and pieces per policy (recorded, never used as gates).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris import engine
from dicode.domains.tetris.heuristics import make_policy
from dicode.domains.tetris.schema import TetrisLevel
from dicode.levels.pipeline import RolloutReport

HEURISTIC = "dellacherie"


def _play(
    policy: Callable[[jax.Array, jnp.ndarray, jnp.ndarray], jnp.ndarray],
    params: engine.EnvParams,
    steps: int,
) -> Callable[[jax.Array, TetrisLevel], dict[str, jnp.ndarray]]:
    """One game on one level instance; returns reset flags and end-of-game statistics."""

    def game(key: jax.Array, level: TetrisLevel) -> dict[str, jnp.ndarray]:
        key_reset, key_play = jax.random.split(key)
        _, state = engine.reset(key_reset, params, level)
        at_reset = {"solved": engine.success(state), "blocked": state.game_over}

        def turn(state: engine.EnvState, key: jax.Array) -> tuple[engine.EnvState, None]:
            key_act, key_step = jax.random.split(key)
            action = policy(key_act, state.board, state.piece)
            _, state, _, _, _ = engine.step(key_step, state, action, params)
            return state, None

        state, _ = jax.lax.scan(turn, state, jax.random.split(key_play, steps))
        return {
            **at_reset,
            "success": engine.success(state),
            "lines": state.lines,
            "pieces": state.pieces,
        }

    return game


class TetrisRollouts:
    """Compiled rollouts of a random and a heuristic policy over a whole pool."""

    def __init__(self, steps: int = 300, heuristic: str = HEURISTIC) -> None:
        if steps < 1:
            raise ValueError(f"steps must be >= 1, got {steps}")
        params = engine.EnvParams()
        self.steps = steps
        self.heuristic = heuristic
        games = {
            "random": _play(make_policy("random"), params, steps),
            "heuristic": _play(make_policy(heuristic), params, steps),
        }

        def run(key: jax.Array, pool: TetrisLevel) -> dict[str, dict[str, jnp.ndarray]]:
            size = pool.board.shape[0]
            keys = jax.random.split(key, len(games))
            return {
                name: jax.vmap(game)(jax.random.split(k, size), pool)
                for (name, game), k in zip(games.items(), keys, strict=True)
            }

        self._run = jax.jit(run)

    def evaluate(self, pool: dict[str, np.ndarray], seed: int) -> RolloutReport:
        """Play the pool; rollouts are seeded from ``seed``."""
        level = TetrisLevel(**{key: jnp.asarray(value) for key, value in pool.items()})
        results: dict[str, Any] = jax.device_get(self._run(jax.random.PRNGKey(seed), level))
        random, heuristic = results["random"], results["heuristic"]
        blocked = int(np.sum(random["blocked"]))
        difficulty = {
            "random_success": float(np.mean(random["success"])),
            "heuristic_success": float(np.mean(heuristic["success"])),
            "random_lines": float(np.mean(random["lines"])),
            "heuristic_lines": float(np.mean(heuristic["lines"])),
            "random_pieces": float(np.mean(random["pieces"])),
            "heuristic_pieces": float(np.mean(heuristic["pieces"])),
            "rollout_steps": float(self.steps),
        }
        problem = None
        if blocked:
            problem = f"blocked at reset: the first piece cannot spawn in {blocked} instances"
        return RolloutReport(
            solved_at_reset=int(np.sum(random["solved"])), difficulty=difficulty, problem=problem
        )
