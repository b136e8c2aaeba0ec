"""The field report's reward wrapper, with a gate in front: engine reward + α · judge score.

Semantics (as in the field report's ``LLMRewardWrapper``): the judge looks at the outcome of the
step's placement on steps 1, k+1, 2k+1, … after a reset (every ``every`` steps, k = 10 by
default); the other steps reuse the last score (0 before the first judgement, and after a failed
first call). The training reward is ``reward_env + alpha * score`` (α = 0.2). The judge's
suggested placement for the next piece is only logged (``history``), never acted on.

This is a **Python-level wrapper** around the jitted engine, one environment and one step at a
time: a judge call is network I/O (an LLM) and cannot run inside ``jax.jit``, ``vmap`` or
``lax.scan``. A student that trains inside one compiled loop would have to precompute judge
scores outside it (e.g. between rollouts); this wrapper is for Python-stepped training and for
measuring what shaping would add.

The constructor runs the gate: it needs the judge's ``BenchmarkReport`` and refuses a judge
that cannot discriminate (``JudgeRejected`` with the figures).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris import engine, legacy
from dicode.domains.tetris.engine import EnvParams, EnvState, Observation
from dicode.domains.tetris.judges.base import Judge, Outcome, Placement
from dicode.domains.tetris.judges.benchmark import BenchmarkReport
from dicode.domains.tetris.judges.gate import GateThresholds, JudgeRejected, admit
from dicode.domains.tetris.schema import TetrisLevel


@dataclass(frozen=True)
class ShapingConfig:
    """Reward shaping knobs (defaults: the field report's)."""

    alpha: float = 0.2  # weight of the judge score in the training reward
    every: int = 10  # judge every k-th step; the steps between reuse the last score

    def __post_init__(self) -> None:
        if self.every < 1:
            raise ValueError(f"every must be at least 1, got {self.every}")


@dataclass
class JudgeCall:
    """One judge call made by the wrapper (the log of scores and suggestions)."""

    step: int  # steps since reset, 1-based
    score: float | None
    suggestion: Placement | None
    error: str | None
    latency_s: float


@dataclass
class _Episode:
    steps: int = 0
    score: float = 0.0
    suggestion: Placement | None = None
    history: list[JudgeCall] = field(default_factory=list)


class JudgeShapedEnv:
    """``reset``/``step`` of the Tetris engine with the judge's score added to the reward."""

    def __init__(
        self,
        judge: Judge,
        report: BenchmarkReport,
        *,
        params: EnvParams | None = None,
        config: ShapingConfig | None = None,
        thresholds: GateThresholds | None = None,
    ) -> None:
        if report.judge != judge.name:
            raise JudgeRejected(
                f"the benchmark report is for judge {report.judge!r}, not {judge.name!r}"
            )
        admit(report, thresholds)
        self.judge = judge
        self.params = params or EnvParams()
        self.config = config or ShapingConfig()
        self._step = jax.jit(engine.step)
        self._episode = _Episode()
        self._runner: asyncio.Runner | None = None

    @property
    def history(self) -> list[JudgeCall]:
        """Judge calls of the current episode, in order."""
        return self._episode.history

    def reset(
        self, key: jax.Array, level: TetrisLevel | None = None
    ) -> tuple[Observation, EnvState]:
        """``engine.reset``; the judge's last score and the step count start again."""
        self._episode = _Episode()
        return engine.reset(key, replace(self.params, level=level))

    def step(
        self, key: jax.Array, state: EnvState, action: int
    ) -> tuple[Observation, EnvState, float, bool, dict[str, Any]]:
        """``engine.step`` plus shaping; blocks on the judge call when one is due."""
        if self._runner is None:
            self._runner = asyncio.Runner()
        return self._runner.run(self.astep(key, state, action))

    async def astep(
        self, key: jax.Array, state: EnvState, action: int
    ) -> tuple[Observation, EnvState, float, bool, dict[str, Any]]:
        """``step`` for callers already inside an event loop."""
        episode = self._episode
        was_done = bool(state.done)
        obs, new_state, reward, done, info = self._step(key, state, jnp.int32(action), self.params)
        reward_env = float(reward)
        due = not was_done and episode.steps % self.config.every == 0
        error = None
        if not was_done:
            episode.steps += 1
        if due:
            verdict = await self.judge.score(self._outcome(state, action, new_state, info))
            error = None if verdict.ok else f"{verdict.error_kind}: {verdict.error}"
            if verdict.score is not None:
                episode.score = verdict.score
                episode.suggestion = verdict.suggestion
            episode.history.append(
                JudgeCall(episode.steps, verdict.score, verdict.suggestion, error,
                          verdict.latency_s)
            )  # fmt: skip
        # A finished game's frozen steps earn nothing, shaped or not.
        bonus = 0.0 if was_done else self.config.alpha * episode.score
        suggestion = episode.suggestion
        info = {key_: np.asarray(value) for key_, value in info.items()}
        info.update(
            reward_env=reward_env,
            reward_shaped=reward_env + bonus,
            judge_score=episode.score,
            judge_suggestion=None if suggestion is None else (suggestion.rotation,
                                                              suggestion.column),
            judge_called=due,
            judge_error=error,
        )  # fmt: skip
        return obs, new_state, reward_env + bonus, bool(done), info

    def _outcome(
        self, state: EnvState, action: int, new_state: EnvState, info: dict[str, Any]
    ) -> Outcome:
        piece = int(state.piece)
        placement = int(action)
        if self.params.legacy_actions:
            placement = int(legacy.to_placement(jnp.int32(piece), jnp.int32(action),
                                                self.params.width))  # fmt: skip
        return Outcome(
            before=np.asarray(state.board),
            piece=piece,
            action=placement,
            after=np.asarray(new_state.board),
            lines=int(info["lines"]),
            next_piece=int(new_state.piece),
        )

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None

    def __enter__(self) -> JudgeShapedEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
