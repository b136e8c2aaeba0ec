"""The Tetris student as a :class:`~dicode.student.loop.SlotTrainer`: PPO over afterstates on
S slots, the greedy target protocol, checkpoints of the whole runner.

Slots are the stacked ``(S, K, ...)`` arrays of :class:`TetrisLevel` (:func:`build_slots`);
placing a level rebuilds them before the next iteration, with the same shapes, so nothing
recompiles. The compiled update and evaluator are shared by every trainer of one configuration
in a process (the update never reads the seed), so runs that differ only in seed compile once.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.schema import TetrisLevel, stack_levels, target_level
from dicode.domains.tetris.student.config import PPOConfig
from dicode.domains.tetris.student.evaluate import Evaluator, evaluate_greedy, make_greedy_evaluator
from dicode.domains.tetris.student.slot_world import Trainer
from dicode.student.checkpoint import load_checkpoint, save_checkpoint
from dicode.student.layout import LayoutTrainer
from dicode.student.ppo import LOSSES, RunnerState
from dicode.student.seed_program import seed_slice
from dicode.student.tally import EpisodeTally, slot_tallies
from dicode.student.target_program import FixedTarget

EVAL_GAMES = 20  # the target protocol (docs/evaluation.md)
EVAL_MAX_PIECES = 1_000


@dataclass(frozen=True)
class CompiledStudent:
    """A PPO update and a greedy target evaluator, each compiled on first use."""

    ppo: Trainer
    evaluator: Evaluator


@functools.cache
def compiled_student(config: PPOConfig, games: int, max_pieces: int) -> CompiledStudent:
    """One compiled student per layout, network, update and protocol (seed left out)."""
    ppo = Trainer(replace(config, seed=0))
    return CompiledStudent(ppo, make_greedy_evaluator(ppo.network, games, max_pieces))


def build_slots(pools: Sequence[TetrisLevel], pool_size: int) -> TetrisLevel:
    """Stack the slots' pools into the trainer's ``(S, K, ...)`` arrays.

    A pool with more than ``pool_size`` instances uses its first ``pool_size``; a smaller one
    repeats its instances cyclically (shapes must stay fixed so nothing recompiles).
    """

    def fitted(pool: TetrisLevel) -> tuple[np.ndarray, ...]:
        index = np.arange(pool_size) % int(pool.board.shape[0])
        return tuple(np.asarray(leaf)[index] for leaf in _leaves(pool))

    stacked = zip(*(fitted(pool) for pool in pools), strict=True)
    return TetrisLevel(*(jnp.asarray(np.stack(parts)) for parts in stacked))


def _leaves(level: TetrisLevel) -> tuple[Any, ...]:
    return (level.board, level.piece_weights, level.sequence, level.goal_lines, level.goal_pieces)


class TetrisSlotTrainer(LayoutTrainer):
    """See the module docstring; ``pool`` arguments are :class:`TetrisLevel` pools."""

    config: PPOConfig

    def __init__(
        self,
        config: PPOConfig,
        eval_games: int = EVAL_GAMES,
        eval_max_pieces: int = EVAL_MAX_PIECES,
    ) -> None:
        self.config = config
        compiled = compiled_student(replace(config, seed=0), eval_games, eval_max_pieces)
        self.ppo, self.evaluator = compiled.ppo, compiled.evaluator
        self.eval_max_pieces = eval_max_pieces
        self.target_pool = stack_levels([target_level()])
        self.pools: list[TetrisLevel] = [self.target_pool] * config.num_slots
        self.slots = build_slots(self.pools, config.pool_size)
        self.runner: RunnerState = self.ppo.init(config.seed, self.slots)
        self.last_losses: dict[str, jax.Array] = {}  # the last update's, for a run's log
        self._stale = False

    def place(self, slot: int, pool: TetrisLevel | None) -> None:
        self.pools[slot] = self.target_pool if pool is None else pool
        self._stale = True

    def iterate(self, slot_reset: np.ndarray, r_prev: float) -> list[EpisodeTally]:
        if self._stale:
            self.slots = build_slots(self.pools, self.config.pool_size)
            self._stale = False
        self.runner, stats, metrics = self.ppo.iterate(
            self.runner, self.slots, jnp.asarray(slot_reset), jnp.float32(r_prev)
        )
        self.last_losses = {name: metrics[name] for name in LOSSES}
        return slot_tallies(stats)

    def evaluate(self) -> dict[str, Any]:
        """Greedy target protocol: lines per game (mean, sample std), pieces per game, and the
        skill profile (``dicode.domains.tetris.skills``)."""
        result = evaluate_greedy(self.evaluator, self.runner.train.params)
        return result.figures(self.eval_max_pieces)

    def target_game(self) -> FixedTarget:
        """The target game on the device (``target_program.DeviceTargetTrainer``): every slot
        on the standard game."""
        pools = [self.target_pool] * self.config.num_slots
        return FixedTarget(build_slots(pools, self.config.pool_size))

    def evaluate_batch(self, params: Any) -> list[dict[str, Any]]:
        """The greedy protocol of several seeds' parameters (leading axis), seed by seed."""
        seeds = jax.tree_util.tree_leaves(params)[0].shape[0]
        return [
            evaluate_greedy(self.evaluator, seed_slice(params, i)).figures(self.eval_max_pieces)
            for i in range(seeds)
        ]

    def save(self, path: Path, extra: dict[str, Any]) -> None:
        save_checkpoint(path, self.runner, extra)

    def load(self, path: Path) -> dict[str, Any]:
        """The whole runner (environments mid-episode included) comes back; slots restart on
        the target game."""
        self.runner, extra = load_checkpoint(path, self.runner)
        self.pools = [self.target_pool] * self.config.num_slots
        self._stale = True
        return extra


class TetrisTargetProtocol:
    """The greedy target protocol on checkpoints of a Tetris student (compiled once)."""

    def __init__(self, config: PPOConfig, games: int, max_pieces: int) -> None:
        compiled = compiled_student(replace(config, seed=0), games, max_pieces)
        self.games, self.max_pieces = games, max_pieces
        self._evaluator = compiled.evaluator
        slots = build_slots([stack_levels([target_level()])] * config.num_slots, config.pool_size)
        self._template = compiled.ppo.init(config.seed, slots)  # the runner's structure

    def read_params(self, checkpoint: Path) -> Any:
        runner, _ = load_checkpoint(checkpoint, self._template)
        return runner.train.params

    def measure(self, params: Any) -> dict[str, Any]:
        figures = evaluate_greedy(self._evaluator, params).figures(self.max_pieces)
        return figures | {"games": self.games, "max_steps": self.max_pieces}
