"""Several training seeds as one compiled program, iterations chained on the device.

PureJaxRL's recipe (Lu et al. 2022): write one seed's training iteration as a pure function of
its state, run many iterations inside one compiled loop, and ``jax.vmap`` the whole loop over
seeds, each seed with its own parameters, optimiser state, curriculum state and keys. Here a
world or curriculum gives :class:`SeedProgram` one iteration of one seed, ``body(state) ->
(state, output)``; the program runs a *chunk* of ``count`` iterations (``count`` is data, so
chunks of any length share one compilation) and hands back each iteration's output in a row of
fixed-size arrays (``max_count`` rows; rows past ``count`` are zeros). The host touches the
state only between chunks — to evaluate and record — never per iteration.

A program saves itself after every evaluation but the last (:class:`Checkpoint`: the seeds'
states, their curves so far, the training clock and the caller's own host-side state), and a
run of the same program started again goes on from there: a long run (250M steps are hours on
a GPU) loses at most one chunk to an interruption.

A batch of one seed runs without ``vmap`` (a lone run): its ``lax.cond`` branches stay real
branches (robust PLR skips the update on the iterations that only measure), where a vmapped
batch computes both sides and selects per seed. Seed k of a batch and a lone run of seed k
run the same arithmetic (``tests/student/test_seed_program.py``).

:func:`evaluation_iterations` lays out when a loop evaluates (as ``dicode.student.loop.train``
does: at the start, after the first whole session that reaches each ``every`` steps, and at the
end), so a program's chunks end exactly where the host loop would have evaluated.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from dicode.student.checkpoint import load_checkpoint, save_checkpoint
from dicode.student.loop import CurvePoint

State = TypeVar("State")


def stack_seeds(trees: Sequence[Any]) -> Any:
    """Per-seed pytrees of equal structure as one pytree with a leading seed axis, committed to
    the device as a chunk's outputs are (so the first chunk and later ones share one compile)."""
    stacked = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *trees)
    return jax.device_put(stacked, jax.devices()[0])


def seed_slice(tree: Any, index: int) -> Any:
    """Seed ``index`` of a stacked pytree."""
    return jax.tree_util.tree_map(lambda x: x[index], tree)


class SeedProgram(Generic[State]):
    """``program(state, count) -> (state, outputs)`` over a stacked batch of ``seeds`` states.

    ``body``: one iteration of one seed; ``example``: one seed's state (for the output shapes);
    ``max_count``: the longest chunk. ``trace_count`` counts compilations of the chunk.
    """

    def __init__(
        self,
        body: Callable[[State], tuple[State, Any]],
        example: State,
        max_count: int,
        seeds: int,
    ) -> None:
        if max_count < 1 or seeds < 1:
            raise ValueError("max_count and seeds must be >= 1")
        self.seeds, self.max_count = seeds, max_count
        self.trace_count = 0
        output = jax.eval_shape(lambda s: body(s)[1], example)

        def chunk(state: State, count: jax.Array) -> tuple[State, Any]:
            self.trace_count += 1  # runs only while tracing
            rows = jax.tree_util.tree_map(
                lambda x: jnp.zeros((max_count, *x.shape), x.dtype), output
            )

            def one(i: jax.Array, carry: tuple[State, Any]) -> tuple[State, Any]:
                state, rows = carry
                state, out = body(state)
                return state, jax.tree_util.tree_map(lambda r, x: r.at[i].set(x), rows, out)

            return jax.lax.fori_loop(0, count, one, (state, rows))

        if seeds == 1:  # a lone run: no vmap, its conds stay branches
            lone = jax.jit(chunk)

            def run(state: State, count: jax.Array) -> tuple[State, Any]:
                state, rows = lone(seed_slice(state, 0), count)
                return stack_seeds([state]), stack_seeds([rows])

            self._run: Callable[[State, jax.Array], tuple[State, Any]] = run
        else:
            self._run = jax.jit(jax.vmap(chunk, in_axes=(0, None)))

    def __call__(self, state: State, count: int) -> tuple[State, Any]:
        """``count`` iterations of every seed; the outputs' leaves are ``(seeds, max_count,
        ...)``."""
        if not 0 <= count <= self.max_count:
            raise ValueError(f"a chunk runs 0..{self.max_count} iterations, not {count}")
        return self._run(state, jnp.int32(count))


def evaluation_iterations(
    env_steps: int, batch_size: int, every_steps: int, session: int = 1
) -> list[int]:
    """The iterations at which ``dicode.student.loop.train`` evaluates a run of ``env_steps``
    env steps (``batch_size`` per iteration, sessions of ``session`` iterations, an evaluation
    every ``every_steps``): 0, the first session end at or past each mark, and the end."""
    points, iteration, next_eval = [], 0, 0
    while True:
        steps = iteration * batch_size
        if steps >= next_eval or steps >= env_steps:
            points.append(iteration)
            next_eval += every_steps
        if steps >= env_steps:
            return points
        iteration += session


def chunk_lengths(points: Sequence[int]) -> list[int]:
    """The iterations between consecutive evaluations."""
    return [b - a for a, b in itertools.pairwise(points)]


#: What a program's driver asks per seed after a chunk: ``(train_target, curriculum)`` figures
#: of the curve point (``CurvePoint``) from the seed, its chunk's output rows and its state.
Describe = Callable[[int, Any, Any], tuple[dict[str, float], dict[str, float]]]
#: Who sees each seed's new curve point: ``(seed, curve, rows)``, the rows of the chunk that led
#: to it (None for the first point).
OnPoint = Callable[[int, list[CurvePoint], Any], object]


@dataclass(frozen=True)
class Checkpoint:
    """Where a program saves itself, and what a saved program must match to go on from it.

    ``identity``: whatever makes two programs the same (method, config, seeds, budget), so a
    file left by another program is never resumed; ``host`` gives and ``restore`` takes back the
    caller's host-side state that the device state does not hold (arrays by name)."""

    path: Path
    identity: str
    host: Callable[[], dict[str, np.ndarray]] | None = None
    restore: Callable[[dict[str, np.ndarray]], None] | None = None


@dataclass
class _Progress:
    """Where a program stands after an evaluation: what a checkpoint holds."""

    index: int  # of the evaluation in ``points``
    state: Any
    curves: list[list[CurvePoint]]
    train_s: float
    cpu_s: float


def _save(checkpoint: Checkpoint, progress: _Progress) -> None:
    saved = {
        "program": jax.device_get(progress.state),
        "host": checkpoint.host() if checkpoint.host else {},
    }
    extra = {
        "identity": checkpoint.identity,
        "index": progress.index,
        "curves": [[asdict(point) for point in curve] for curve in progress.curves],
        "clock": [progress.train_s, progress.cpu_s],
    }
    save_checkpoint(checkpoint.path, saved, extra)  # atomic: a crash keeps the previous one


def _load(checkpoint: Checkpoint, template: Any) -> _Progress | None:
    """The saved progress, or None (said why) when there is none, it is another program's or it
    cannot be read: a run starts over rather than going on from a state it cannot trust."""
    if not checkpoint.path.exists():
        return None
    # The host arrays' template has the saved names; their lengths come from the file.
    host_names = checkpoint.host() if checkpoint.host else {}
    try:
        saved, extra = load_checkpoint(checkpoint.path, {"program": template, "host": host_names})
        if extra["identity"] != checkpoint.identity:
            raise ValueError("another program's checkpoint")
        state = saved["program"]
        for got_leaf, want in zip(
            jax.tree_util.tree_leaves(state), jax.tree_util.tree_leaves(template), strict=True
        ):
            got, expected = ((np.asarray(x).dtype, np.shape(x)) for x in (got_leaf, want))
            if got != expected:
                raise ValueError(f"a saved array is {got}, not {expected}")
        curves = [[CurvePoint(**p) for p in curve] for curve in extra["curves"]]
        train_s, cpu_s = (float(x) for x in extra["clock"])
        index = int(extra["index"])
    except (ValueError, KeyError, TypeError) as error:
        print(f"{checkpoint.path}: not resumed ({error}); starting over", flush=True)
        return None
    if checkpoint.restore:
        checkpoint.restore(dict(saved["host"]))
    # On the device as a chunk's outputs are: the program goes on without a new compile.
    state = jax.device_put(state, jax.devices()[0])
    return _Progress(index, state, curves, train_s, cpu_s)


def run_program(
    program: SeedProgram[Any],
    state: Any,
    points: Sequence[int],
    batch_size: int,
    evaluate: Callable[[Any], list[dict[str, Any]]],
    describe: Describe,
    on_point: OnPoint | None = None,
    checkpoint: Checkpoint | None = None,
) -> tuple[Any, list[list[CurvePoint]]]:
    """Run ``program`` from ``state`` through the evaluation iterations ``points`` (the first is
    where ``state`` stands); returns the final state and each seed's curve.

    ``evaluate(state)``: the target protocol's figures of every seed; ``describe(seed, rows,
    state)``: the chunk's training figures of one seed from its output rows (leaves ``(count,
    ...)``, None before the first chunk); ``on_point(seed, curve, rows)`` sees each new point.
    A seed's training seconds are its share of the program's (the seeds train together).
    With ``checkpoint``, the program saves itself after every evaluation but the last and goes
    on from a saved one (its points are not seen again)."""
    seeds = program.seeds
    progress = _Progress(-1, state, [[] for _ in range(seeds)], 0.0, 0.0)
    if checkpoint is not None:
        progress = _load(checkpoint, state) or progress
        if progress.index >= 0:
            print(
                f"{checkpoint.path}: going on from evaluation {progress.index} (iteration "
                f"{points[progress.index]})",
                flush=True,
            )
    state, curves = progress.state, progress.curves
    train_s, cpu_s = progress.train_s, progress.cpu_s
    for index in range(progress.index + 1, len(points)):
        iteration = points[index]
        rows = None
        if index:
            count = iteration - points[index - 1]
            t0, c0 = time.perf_counter(), time.process_time()
            state, outputs = program(state, count)
            outputs = jax.device_get(outputs)  # waits for the chunk
            train_s += time.perf_counter() - t0
            cpu_s += time.process_time() - c0
            rows = jax.tree_util.tree_map(lambda x, n=count: x[:, :n], outputs)
        figures = evaluate(state)
        for seed in range(seeds):
            mine = None if rows is None else seed_slice(rows, seed)
            training, curriculum = describe(seed, mine, seed_slice(state, seed))
            point = CurvePoint(
                iteration, iteration * batch_size, round(train_s / seeds, 2),
                round(cpu_s / seeds, 2), figures[seed], training, curriculum,
            )  # fmt: skip
            curves[seed].append(point)
            if on_point is not None:
                on_point(seed, curves[seed], mine)
        if checkpoint is not None and index < len(points) - 1:
            _save(checkpoint, _Progress(index, state, curves, train_s, cpu_s))
    return state, curves
