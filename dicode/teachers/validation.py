"""The one place where teachers meet the sandbox pipeline (``dicode.levels``).

A teacher only sees a :data:`~dicode.teachers.base.Validate` callable: source text in, verdict
out. This adapter keeps one warm :class:`~dicode.levels.pipeline.Validator` per teacher, so
each attempt pays neither sandbox start-up nor engine compilation again.
"""

from __future__ import annotations

from typing import Any

from dicode.levels.pipeline import Validator
from dicode.levels.verdict import Verdict
from dicode.levels.world import LevelWorld


class SandboxValidate:
    """Callable ``(source) -> Verdict`` over a long-lived, thread-safe ``Validator``."""

    def __init__(self, world: LevelWorld, seed: int = 0, **validator_options: Any) -> None:
        self.seed = seed  # seeds every level's pool, so a verdict can be reproduced
        self._validator = Validator(world, **validator_options)

    def __call__(self, source: str) -> Verdict:
        return self._validator.validate(source, seed=self.seed)

    def close(self) -> None:
        self._validator.close()


def sandbox_validator(
    world: LevelWorld, seed: int = 0, **validator_options: Any
) -> SandboxValidate:
    """The real sandbox pipeline for ``world`` (options as for ``Validator``)."""
    return SandboxValidate(world, seed, **validator_options)
