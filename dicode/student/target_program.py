"""Target-only training of several seeds as one device program, for any world.

Every slot plays the target game (the ``target`` method: ``dicode.student.loop.train`` over a
``StudentLoop`` without a schedule), so nothing between iterations needs the host: the world's
:class:`TargetGame` says what the slots hold next iteration (Tetris: always the same start;
the maze: its target pool with fresh mazes written in, made on the device), the one PPO's
``iteration`` trains, and each iteration's target tally (finished episodes, successes, return,
the world's sums) and losses come back as rows of the chunk (``seed_program.SeedProgram``).

The target game pays no completion bonus, so the running target return ``R̄`` that a host loop
passes each iteration changes nothing here and is passed as 0.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np

from dicode.student.loop import CurvePoint
from dicode.student.ppo import LOSSES, RunnerState, SlotPPO
from dicode.student.seed_program import (
    Checkpoint,
    OnPoint,
    SeedProgram,
    chunk_lengths,
    evaluation_iterations,
    run_program,
    seed_slice,
    stack_seeds,
)
from dicode.student.tally import EpisodeTally


class TargetGame(Protocol):
    """A world's target game on the device, seed by seed."""

    def initial(self, seed: int) -> Any:
        """The game's device state for training seed ``seed`` (``()`` when it has none)."""
        ...

    def next_slots(self, state: Any) -> tuple[Any, Any]:
        """``(state, slots)``: the slot arrays of the next iteration (pure, traceable)."""
        ...


@flax.struct.dataclass
class TargetState:
    """One seed: the PPO's runner and the target game's own state."""

    runner: RunnerState
    game: Any


def initial_states(ppo: SlotPPO, game: TargetGame, seeds: list[int]) -> TargetState:
    """The seeds' first states, stacked (each runner as ``ppo.init`` makes it for that seed)."""
    states = []
    for seed in seeds:
        game_state = game.initial(seed)
        _, slots = jax.jit(game.next_slots)(game_state)  # the slots the envs start on
        states.append(TargetState(ppo.init(seed, slots), game_state))
    return stack_seeds(states)


def target_program(
    ppo: SlotPPO, game: TargetGame, example: TargetState, max_count: int, seeds: int
) -> SeedProgram[TargetState]:
    """The chunk program (``example``: one seed's state)."""
    num_slots = ppo.config.num_slots

    def body(state: TargetState) -> tuple[TargetState, dict[str, Any]]:
        game_state, slots = game.next_slots(state.game)
        keep = jnp.zeros((num_slots,), bool)
        runner, stats, metrics = ppo.iteration(state.runner, slots, keep, jnp.float32(0.0))
        tally = {
            "episodes": stats.episodes.sum(),
            "successes": stats.successes.sum(),
            "return_sum": stats.return_sum.sum(),
            "sums": {name: x.sum() for name, x in stats.sums.items()},
        }
        out = {"tally": tally, "losses": {name: metrics[name] for name in LOSSES}}
        return TargetState(runner, game_state), out

    return SeedProgram(body, example, max_count, seeds)


def target_seeds_program(
    ppo: SlotPPO, game: TargetGame, seeds: list[int], max_count: int
) -> tuple[SeedProgram[TargetState], TargetState]:
    """The chunk program of ``seeds`` (chunks of up to ``max_count`` iterations) and their
    first states."""
    state = initial_states(ppo, game, seeds)
    return target_program(ppo, game, seed_slice(state, 0), max_count, len(seeds)), state


def chunk_tally(rows: dict[str, Any]) -> EpisodeTally:
    """The target tally of one seed's chunk rows, summed on the host in float64."""
    tally = rows["tally"]
    return EpisodeTally(
        int(np.sum(tally["episodes"])),
        int(np.sum(tally["successes"])),
        float(np.sum(tally["return_sum"], dtype=np.float64)),
        {k: float(np.sum(v, dtype=np.float64)) for k, v in tally["sums"].items()},
    )


def training_figures(rows: dict[str, Any] | None) -> dict[str, float]:
    """A curve point's ``train_target`` (as ``loop.train``): the mean return of the target
    episodes since the point before (NaN without one) and the world's means."""
    if rows is None:
        return {"mean_return": float("nan")}
    tally = chunk_tally(rows)
    mean = tally.mean_return
    return {"mean_return": float("nan") if mean is None else mean} | tally.means()


class FixedTarget:
    """A target game whose slots never change (Tetris: every env restarts on the standard
    game): the slot arrays are constants of the program."""

    def __init__(self, slots: Any) -> None:
        self.slots = slots

    def initial(self, seed: int) -> tuple[()]:
        return ()

    def next_slots(self, state: tuple[()]) -> tuple[tuple[()], Any]:
        return state, self.slots


@runtime_checkable
class DeviceTargetTrainer(Protocol):
    """A world's trainer that can run its target game as a device program: its compiled PPO,
    its target game, and the target protocol over several seeds' parameters."""

    @property
    def ppo(self) -> SlotPPO: ...

    def target_game(self) -> TargetGame: ...

    def evaluate_batch(self, params: Any) -> list[dict[str, Any]]:
        """The protocol's figures (``SlotTrainer.evaluate``) of each seed's parameters."""
        ...


def train_target_seeds(
    trainer: DeviceTargetTrainer,
    seeds: list[int],
    env_steps: int,
    iterations_per_session: int,
    eval_every_steps: int,
    on_point: OnPoint | None = None,
    checkpoint: Checkpoint | None = None,
) -> list[list[CurvePoint]]:
    """Target-only training of ``seeds`` as one program, evaluated where ``loop.train`` would
    evaluate a lone run (sessions of ``iterations_per_session``); each seed's curve.
    ``checkpoint``: the program saves itself there and goes on from it (``run_program``)."""
    ppo, game = trainer.ppo, trainer.target_game()
    batch = ppo.config.batch_size
    points = evaluation_iterations(env_steps, batch, eval_every_steps, iterations_per_session)
    program, state = target_seeds_program(ppo, game, seeds, max(chunk_lengths(points), default=1))

    def evaluate(state: TargetState) -> list[dict[str, Any]]:
        return trainer.evaluate_batch(state.runner.train.params)

    def describe(seed: int, rows: Any, state: TargetState) -> tuple[dict, dict]:
        return training_figures(rows), {}

    _, curves = run_program(program, state, points, batch, evaluate, describe, on_point, checkpoint)
    return curves
