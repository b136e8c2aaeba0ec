"""The maze student as a :class:`~dicode.student.loop.SlotTrainer`: PPO-GRU over the maze
engine's S slots, the held-out protocol, checkpoints of the learning state.

Slots live on the host as NumPy pools (tiny: K layouts of 13×13 cells per slot) and go to the
device whenever one changes, always with the same shapes and placement, so nothing
recompiles. The target game is domain randomisation: a pool of K DR mazes, of which
``target_refresh`` are replaced by new ones (made on the host with NumPy) before every
iteration on the slots that play it — close to the literature's fresh maze per episode. DR
maze j is the j-th of the run's own stream and sits at pool position ``j % K``, so the pool is
rebuilt on resume from its counter alone. ``config.target`` may name another family (the
sparse long-path mazes, ``generate.target_pool``), made the same way; ``config.heldout`` picks
the evaluation set. Levels pay the completion bonus, the target game
does not. A checkpoint keeps parameters, optimiser state, RNG key, iteration and the DR
counter; a resumed student restarts every env (and GRU state) on the target game.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np
from flax.training.train_state import TrainState

from dicode.domains.maze import engine
from dicode.domains.maze.generate import target_pool
from dicode.domains.maze.grid import MAX_STEPS
from dicode.domains.maze.level_checks import MazePool
from dicode.domains.maze.student.config import (
    EVAL_DR_MAZES,
    EVAL_EPISODES,
    EVAL_SEED,
    MazePPOConfig,
)
from dicode.domains.maze.student.evaluate import MazeEvaluator
from dicode.domains.maze.student.slot_world import MazeSlots, Trainer
from dicode.domains.maze.student.target_game import MazeTargetGame
from dicode.student.checkpoint import load_checkpoint, save_checkpoint
from dicode.student.layout import LayoutTrainer
from dicode.student.ppo import LOSSES, RunnerState
from dicode.student.tally import EpisodeTally, slot_tallies

# Offset of the training DR stream from the run seed (apart from the evaluation's streams).
_STREAM_OFFSET = 1_000_003


@dataclass
class TargetPool:
    """Host copy of the target game's DR pool and how many mazes of the stream were made."""

    seed: int
    pool_size: int
    generated: int = 0  # mazes made so far (the checkpointed counter)
    family: str = "dr"  # generate.TARGET_FAMILIES
    pool: MazePool = field(init=False)

    def __post_init__(self) -> None:
        first = max(self.generated, self.pool_size) - self.pool_size
        self.generated = first + self.pool_size
        indices = sorted(range(first, self.generated), key=lambda j: j % self.pool_size)
        self.pool = target_pool(self.family, self.seed + _STREAM_OFFSET, indices)

    def refresh(self, count: int) -> None:
        """Make the next ``count`` mazes and write them over their pool positions."""
        if count <= 0:
            return
        indices = list(range(self.generated, self.generated + count))
        fresh = target_pool(self.family, self.seed + _STREAM_OFFSET, indices)
        positions = np.asarray(indices) % self.pool_size
        for name in ("walls", "start_pos", "start_dir", "goal_pos"):
            getattr(self.pool, name)[positions] = getattr(fresh, name)
        self.generated += count


@flax.struct.dataclass
class LearningState:
    """What a maze checkpoint keeps."""

    train: TrainState
    rng: jnp.ndarray
    iteration: jnp.ndarray


@functools.cache
def compiled_ppo(config: MazePPOConfig) -> Trainer:
    """One compiled update per configuration in a process (the update never reads the seed)."""
    return Trainer(replace(config, seed=0))


def compiled_evaluator(config: MazePPOConfig, episodes: int, max_steps: int) -> MazeEvaluator:
    """One compiled protocol per network and protocol settings (step caps above T are T)."""
    return _compiled_evaluator(replace(config, seed=0), episodes, min(max_steps, MAX_STEPS))


@functools.cache
def _compiled_evaluator(config: MazePPOConfig, episodes: int, max_steps: int) -> MazeEvaluator:
    return MazeEvaluator(
        compiled_ppo(config).network, episodes, max_steps, EVAL_DR_MAZES, EVAL_SEED,
        heldout=config.heldout,
    )  # fmt: skip


class MazeSlotTrainer(LayoutTrainer):
    """See the module docstring; ``pool`` arguments are :class:`MazePool` levels
    (``Domain.decode_pool``)."""

    config: MazePPOConfig

    def __init__(
        self,
        config: MazePPOConfig,
        eval_episodes: int = EVAL_EPISODES,
        eval_max_steps: int = MAX_STEPS,
    ) -> None:
        self.config = config
        self.eval_episodes, self.eval_max_steps = eval_episodes, eval_max_steps
        self.ppo = compiled_ppo(replace(config, seed=0))
        self.target = TargetPool(config.seed, config.pool_size, family=config.target)
        self.levels: list[MazePool | None] = [None] * config.num_slots  # None: the target game
        self.learn = True  # False: the next iterations only measure (no update)
        self.last_losses: dict[str, jax.Array] = {}  # the last update's, for a run's log
        self.slots = self._device_slots()
        self.runner: RunnerState = self.ppo.init(config.seed, self.slots)
        self._stale = False

    def _device_slots(self) -> MazeSlots:
        pools = [self.target.pool if level is None else level for level in self.levels]
        bonus = [level is not None for level in self.levels]  # levels pay, the target not
        slots = MazeSlots(
            engine.make_slots(pools, self.config.pool_size), jnp.asarray(np.asarray(bonus, bool))
        )
        return jax.device_put(slots, jax.devices()[0])

    def place(self, slot: int, pool: MazePool | None) -> None:
        self.levels[slot] = pool
        self._stale = True

    def iterate(self, slot_reset: np.ndarray, r_prev: float) -> list[EpisodeTally]:
        if self.config.target_refresh and any(level is None for level in self.levels):
            self.target.refresh(self.config.target_refresh)
            self._stale = True
        if self._stale:
            self.slots = self._device_slots()
            self._stale = False
        self.runner, stats, metrics = self.ppo.iterate(
            self.runner, self.slots, jnp.asarray(slot_reset, bool), jnp.float32(r_prev), self.learn
        )
        self.last_losses = {name: metrics[name] for name in LOSSES}
        return slot_tallies(stats)

    def evaluator(self) -> MazeEvaluator:
        return compiled_evaluator(
            replace(self.config, seed=0), self.eval_episodes, self.eval_max_steps
        )

    def evaluate(self) -> dict[str, Any]:
        """The held-out protocol (``evaluate.py``), solve rate first, the skills last."""
        return self.evaluator()(self.runner.train.params).figures()

    def target_game(self) -> MazeTargetGame:
        """The target game on the device (``target_program.DeviceTargetTrainer``)."""
        return MazeTargetGame(self.config)

    def evaluate_batch(self, params: Any) -> list[dict[str, Any]]:
        """The held-out protocol of several seeds' parameters in one program."""
        return [result.figures() for result in self.evaluator().batch(params)]

    def save(self, path: Path, extra: dict[str, Any]) -> None:
        r = self.runner
        state = LearningState(train=r.train, rng=r.rng, iteration=r.iteration)
        save_checkpoint(path, state, extra | {"mazes_generated": self.target.generated})

    def load(self, path: Path) -> dict[str, Any]:
        """Learning state from ``path``; every slot back on the target game, the DR pool
        rebuilt, every env and GRU state restarted."""
        r = self.runner
        template = LearningState(train=r.train, rng=r.rng, iteration=r.iteration)
        state, extra = load_checkpoint(path, template)
        self.target = TargetPool(
            self.config.seed, self.config.pool_size, extra["mazes_generated"], self.config.target
        )
        self.levels = [None] * self.config.num_slots
        self.slots = self._device_slots()
        self._stale = False
        runner = replace(r, train=state.train, rng=state.rng, iteration=state.iteration)
        self.runner = self.ppo.restart(runner, self.slots)
        return extra


class MazeTargetProtocol:
    """The held-out protocol on checkpoints of a maze student (compiled once)."""

    def __init__(self, config: MazePPOConfig, episodes: int, max_steps: int) -> None:
        base = replace(config, seed=0)
        ppo = compiled_ppo(base)
        self.episodes, self.max_steps = episodes, min(max_steps, MAX_STEPS)
        train = ppo.init_train(jax.random.PRNGKey(0))
        self._template = LearningState(
            train=train, rng=jax.random.PRNGKey(0), iteration=jnp.zeros((), jnp.int32)
        )
        self._evaluator = compiled_evaluator(base, episodes, max_steps)

    def read_params(self, checkpoint: Path) -> Any:
        state, _ = load_checkpoint(checkpoint, self._template)
        return state.train.params

    def measure(self, params: Any) -> dict[str, Any]:
        figures = self._evaluator(params).figures()
        skills = figures.pop("skills")  # the numbers first, the profile last
        return figures | {"episodes": self.episodes, "max_steps": self.max_steps, "skills": skills}
