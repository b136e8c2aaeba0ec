"""The literature's curricula over the maze: domain randomisation, robust PLR (PLR⊥) and ACCEL.

Written from the published facts of JaxUED's ``examples/maze_plr.py`` (``DramaCow/jaxued``;
Jiang et al. 2021, "Replay-Guided Adversarial Environment Design", arXiv:2110.02439; Parker-
Holder et al. 2022, "Evolving Curricula with Regret-Based Environment Design",
arXiv:2203.01302). Every iteration plays ONE batch of levels, one level per env (the
``JAXUED_LAYOUT`` student: S slots of one env and a pool of one layout, so an env that finishes
an episode replays its level, as JaxUED's auto-replay wrapper does), and every env starts the
iteration afresh on its level. Which batch, by
:class:`~dicode.domains.maze.student.config.UEDConfig`:

- **new**: fresh random levels (25-wall DR by default). DR trains on them; robust PLR and ACCEL
  only roll them out — no gradient step (``learn=False``) — and score them for the buffer;
- **replay** (robust PLR, ACCEL): with probability ``replay_prob`` once the buffer is
  ``min_fill`` full, levels drawn from the buffer ∝ (1−ρ)·rank-score^(1/β) + ρ·staleness
  (ρ = 0.3, β = 0.3), trained on, and rescored;
- **mutate** (ACCEL, right after every replay): the replayed levels edited ``num_edits`` times
  (``generate.edit_level``: flip a wall, move the goal, or nothing, each edit), rolled out
  without a gradient step, scored for the buffer.

Scores: MaxMC (the best return ever seen on the level minus the rollout's mean value) or PVL
(the rollout's mean positive GAE advantage), per env from the update's metrics. The buffer
keeps ``capacity`` levels; a new level enters while there is room, or in place of the lowest
score when it scores higher; a level already in it (same layout and ends) is rescored. No
completion bonus is paid (the literature has none). Env steps count every rollout, trained on
or not, as in JaxUED.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from dicode.archive.replay import rank_weights, staleness_weights
from dicode.domains.maze.generate import edit_level, target_pool
from dicode.domains.maze.grid import SIZE
from dicode.domains.maze.level_checks import MazePool, shortest_paths
from dicode.domains.maze.student.config import UEDConfig
from dicode.domains.maze.student.trainer import MazeSlotTrainer
from dicode.student.loop import CurvePoint, log_evaluation, loss_scalars
from dicode.student.run_log import RunLog

# The new levels' stream is apart from the trainer's own target stream and the evaluation's.
_NEW_LEVEL_STREAM = 5_500_007


@dataclass
class LevelBuffer:
    """PLR's level buffer on the host: layouts, ends, scores, best returns, staleness."""

    capacity: int
    walls: np.ndarray = field(init=False)
    start_pos: np.ndarray = field(init=False)
    start_dir: np.ndarray = field(init=False)
    goal_pos: np.ndarray = field(init=False)
    score: np.ndarray = field(init=False)
    max_return: np.ndarray = field(init=False)
    last_sampled: np.ndarray = field(init=False)
    size: int = 0
    clock: int = 0  # replay batches drawn so far
    _rows: dict[bytes, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        c = self.capacity
        self.walls = np.zeros((c, SIZE, SIZE), bool)
        self.start_pos = np.zeros((c, 2), np.int32)
        self.start_dir = np.zeros(c, np.int32)
        self.goal_pos = np.zeros((c, 2), np.int32)
        self.score = np.zeros(c)
        self.max_return = np.zeros(c)
        self.last_sampled = np.zeros(c, np.int64)

    @property
    def fill(self) -> float:
        return self.size / self.capacity

    def row_of(self, pool: MazePool, i: int) -> int | None:
        """The buffer row holding instance ``i`` of ``pool``, if it is in the buffer."""
        return self._rows.get(_key(pool, i))

    def insert(self, pool: MazePool, i: int, score: float, max_return: float) -> bool:
        """Add instance ``i`` of ``pool`` (or rescore it when present); False when it did not
        score above the lowest level of a full buffer."""
        key = _key(pool, i)
        row = self._rows.get(key)
        if row is None:
            if self.size < self.capacity:
                row, self.size = self.size, self.size + 1
            else:
                row = int(np.argmin(self.score))
                if score <= self.score[row]:
                    return False
                del self._rows[_key(self.pool([row]), 0)]
            self._rows[key] = row
            self.walls[row], self.start_pos[row] = pool.walls[i], pool.start_pos[i]
            self.start_dir[row], self.goal_pos[row] = pool.start_dir[i], pool.goal_pos[i]
            self.last_sampled[row] = self.clock  # fresh on entry
            self.max_return[row] = max_return
        self.score[row] = score
        self.max_return[row] = max(self.max_return[row], max_return)
        return True

    def sample(
        self, rng: np.random.Generator, n: int, staleness_coef: float, temperature: float
    ) -> np.ndarray:
        """``n`` rows drawn with replacement (as JaxUED) ∝ PLR's replay distribution."""
        rows = np.arange(self.size)
        p = (1.0 - staleness_coef) * rank_weights(self.score[rows], temperature)
        p = p + staleness_coef * staleness_weights(self.last_sampled[rows], self.clock)
        drawn = rng.choice(rows, size=n, p=p / p.sum())
        self.clock += 1
        self.last_sampled[drawn] = self.clock
        return drawn

    def pool(self, rows: np.ndarray | list[int]) -> MazePool:
        index = np.asarray(rows, np.int64)
        return MazePool(
            self.walls[index], self.start_pos[index], self.start_dir[index], self.goal_pos[index]
        )


def _key(pool: MazePool, i: int) -> bytes:
    parts = (pool.walls[i].astype(bool), pool.start_pos[i], pool.start_dir[i], pool.goal_pos[i])
    return b"".join(np.asarray(x).astype(np.int32).tobytes() for x in parts)


def _instance(pool: MazePool, i: int) -> MazePool:
    return MazePool(
        pool.walls[i : i + 1], pool.start_pos[i : i + 1], pool.start_dir[i : i + 1],
        pool.goal_pos[i : i + 1],
    )  # fmt: skip


def mutate_pool(
    parents: MazePool, rng: np.random.Generator, edits: int
) -> MazePool:  # fmt: skip
    """Each parent edited ``edits`` times (ACCEL's children)."""
    children = [
        edit_level(parents.walls[i], parents.start_pos[i], parents.goal_pos[i], rng, edits)
        for i in range(parents.size)
    ]
    return MazePool(
        walls=np.stack([walls for walls, _ in children]),
        start_pos=parents.start_pos.copy(),
        start_dir=parents.start_dir.copy(),
        goal_pos=np.stack([goal for _, goal in children]).astype(np.int32),
    )


@dataclass
class UEDCounts:
    """Iterations by branch, gradient steps and distinct levels trained on."""

    new: int = 0
    replay: int = 0
    mutate: int = 0
    gradient: int = 0  # iterations with a PPO update
    trained: set[bytes] = field(default_factory=set)

    def to_dict(self) -> dict[str, int]:
        return {
            "new": self.new,
            "replay": self.replay,
            "mutate": self.mutate,
            "gradient": self.gradient,
        }


@dataclass
class TrainedLevels:
    """What the gradient steps trained on since the last evaluation, for the curve's
    ``curriculum`` figures: does a loop's training mix drift towards long paths (the sparse
    target's question) or away from the held-out mazes (robust PLR's late swings)?"""

    plays: int = 0  # level-plays with a gradient step (one per env per trained iteration)
    path_sum: int = 0  # over the reachable ones
    reachable: int = 0
    wall_sum: int = 0

    def add(self, levels: MazePool) -> None:
        paths = shortest_paths(levels.as_dict())
        self.plays += levels.size
        self.path_sum += int(paths[paths >= 0].sum())
        self.reachable += int((paths >= 0).sum())
        self.wall_sum += int(levels.walls.sum())

    def figures(self, buffer: LevelBuffer) -> dict[str, float]:
        """Means over the plays (empty before the first), and the buffer's fill and score."""
        figures: dict[str, float] = {"trained_plays": self.plays}
        if self.plays:
            figures["trained_walls"] = round(self.wall_sum / self.plays, 2)
            figures["trained_reachable"] = round(self.reachable / self.plays, 4)
        if self.reachable:
            figures["trained_path"] = round(self.path_sum / self.reachable, 2)
        if buffer.size:
            figures["buffer_fill"] = round(buffer.fill, 4)
            figures["buffer_score"] = round(float(buffer.score[: buffer.size].mean()), 4)
        return figures


def run_ued(
    trainer: MazeSlotTrainer,
    config: UEDConfig,
    env_steps: int,
    eval_every_steps: int,
    seed: int,
    log: bool = False,
    run_log: RunLog | None = None,
) -> tuple[list[CurvePoint], UEDCounts, LevelBuffer]:
    """Train ``trainer`` (one env per slot) with ``config``'s curriculum for ``env_steps``
    env steps, evaluating the held-out protocol every ``eval_every_steps``; returns the
    curve, the branch counts and the final buffer. ``run_log`` receives every evaluation with
    the branch counts, and the losses of every iteration that learnt."""
    if trainer.config.envs_per_slot != 1 or trainer.config.pool_size != 1:
        raise ValueError(
            "the literature's curricula play one level per env: envs_per_slot=1, pool_size=1"
        )
    trainer.levels_pay_bonus = False
    rng = np.random.default_rng([seed, _NEW_LEVEL_STREAM])
    n = trainer.num_slots
    buffer, counts = LevelBuffer(config.capacity), UEDCounts()
    curve: list[CurvePoint] = []
    trained = TrainedLevels()
    train_s = cpu_s = 0.0
    next_eval, made, replayed = trainer.iteration * trainer.batch_size, 0, None
    while True:
        steps = trainer.iteration * trainer.batch_size
        if steps >= next_eval or steps >= env_steps:
            figures = trainer.evaluate()
            seconds = round(train_s, 2), round(cpu_s, 2)
            point = CurvePoint(trainer.iteration, steps, *seconds, figures)
            if curve:  # the first row has nothing behind it
                point.curriculum, trained = trained.figures(buffer), TrainedLevels()
            curve.append(point)
            if log:
                print(curve[-1].row(), flush=True)
            if run_log is not None:
                kinds = counts.to_dict() | {"levels_trained": len(counts.trained)}
                log_evaluation(run_log, curve, {f"slots/{k}": n for k, n in kinds.items()})
            next_eval += eval_every_steps
        if steps >= env_steps:
            trainer.learn = True  # the trainer is left as it came: every iteration learns
            return curve, counts, buffer
        t0, c0 = time.perf_counter(), time.process_time()
        # Which batch: ACCEL edits what it just replayed; otherwise replay or new levels.
        if config.method == "accel" and replayed is not None:
            branch, levels = "mutate", mutate_pool(replayed, rng, config.num_edits)
        elif (
            config.method != "dr"
            and buffer.size
            and buffer.fill >= config.min_fill
            and rng.random() < config.replay_prob
        ):
            rows = buffer.sample(rng, n, config.staleness_coef, config.temperature)
            branch, levels = "replay", buffer.pool(rows)
        else:
            seed_stream = _NEW_LEVEL_STREAM + seed
            branch, levels = (
                "new",
                target_pool(config.new_levels, seed_stream, range(made, made + n)),
            )
            made += n
        learn = branch == "replay" or config.method == "dr"
        for slot in range(n):
            trainer.place(slot, _instance(levels, slot))
        trainer.learn = learn
        trainer.iterate(np.ones(n, bool), 0.0)
        setattr(counts, branch, getattr(counts, branch) + 1)
        counts.gradient += int(learn)
        if learn:
            counts.trained.update(_key(levels, i) for i in range(n))
        if config.method != "dr":
            _score_into(buffer, levels, trainer.last_metrics, config.score)
        replayed = levels if branch == "replay" else None
        train_s += time.perf_counter() - t0
        cpu_s += time.process_time() - c0
        if learn:  # outside the timing: a record, not training
            trained.add(levels)
            if run_log is not None:
                run_log.scalars(trainer.iteration * trainer.batch_size, loss_scalars(trainer))


def _score_into(
    buffer: LevelBuffer, levels: MazePool, metrics: dict[str, np.ndarray], score: str
) -> None:
    """Each env's level scored from its rollout (MaxMC or PVL) and offered to the buffer."""
    best = np.where(np.isfinite(metrics["return_max"]), metrics["return_max"], 0.0)
    for i in range(levels.size):
        row = buffer.row_of(levels, i)
        seen = best[i] if row is None else max(best[i], float(buffer.max_return[row]))
        value = (
            float(metrics["pvl"][i]) if score == "pvl" else seen - float(metrics["value_mean"][i])
        )
        buffer.insert(levels, i, value, float(best[i]))
