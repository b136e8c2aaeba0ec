"""The configuration of one run, stored with the run in the archive.

Plain frozen dataclasses that round-trip through JSON into the runs table. The student's own
configuration (``StudentSettings.ppo``) belongs to the run's world, which reads it back
(``Domain.ppo_config``, handed to ``RunSettings.from_dict``); named presets live with each world
(``Domain.profiles``, looked up with ``dicode.domains.profile``). This module never imports a
world: each world imports it for its presets.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol

from dicode.archive.config import ArchiveConfig
from dicode.student.curriculum import CurriculumConfig


@dataclass(frozen=True)
class GeneratorSettings:
    """How the generator proposes levels."""

    teacher: str = "mutation"
    in_flight: int = 2  # attempts running at once
    max_untrained: int = 16  # back-pressure: pause while this many new levels await training
    pool_size: int = 8  # initial states per level bundle
    rollout_steps: int = 150  # steps per validation rollout
    warm_workers: int = 1  # idle sandbox workers kept ready
    poll_s: float = 1.0  # wait between checks while paused
    sandbox_retry_s: float = 30.0  # pause after an attempt the sandbox refused to run
    # False: open loop — parents uniform over all levels, instruction uniform, and the teacher
    # sees no performance (DiCode-OL and the domain-randomisation baselines).
    feedback: bool = True
    # Closed loop: share of attempts that teach a skill the target student lacks (a frontier
    # skill of its newest evaluation, among the first ``skill_choices``) instead of following
    # the parent's status letter. 0 = DiCode as published.
    skill_share: float = 0.5
    skill_choices: int = 3
    # Closed loop: share of attempts whose parent is the target game itself, aimed at what the
    # target student fails there (``Domain.target_parent``, written by the world), asked for
    # an easier child. 0 = DiCode as published. With it above 0 the archive's parents step a
    # ladder: their instruction follows their latest success p (harder at p >= 0.5 +
    # ``ladder_band``, easier at p <= 0.5 - ``ladder_band``, else vary) instead of the status
    # letters, so the children it trains sit near p = 0.5.
    target_aim: float = 0.0
    ladder_band: float = 0.15
    teacher_options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0.0 <= self.target_aim <= 1.0:
            raise ValueError(f"target_aim is a share in [0, 1], got {self.target_aim}")
        if not 0.0 < self.ladder_band <= 0.5:
            raise ValueError(f"ladder_band must lie in (0, 0.5], got {self.ladder_band}")


@dataclass(frozen=True)
class StudentSettings:
    """How the student trains and how often it reports; ``ppo`` is the world's config."""

    ppo: Any = None
    curriculum: CurriculumConfig = field(default_factory=CurriculumConfig)
    iterations_per_session: int = 4  # PPO iterations with fixed slots
    checkpoint_every: int = 2  # sessions between checkpoints
    keep_checkpoints: int = 3  # checkpoint files kept on disk (rows stay in the archive)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ppo": asdict(self.ppo),
            "curriculum": asdict(self.curriculum),
            "iterations_per_session": self.iterations_per_session,
            "checkpoint_every": self.checkpoint_every,
            "keep_checkpoints": self.keep_checkpoints,
        }


@dataclass(frozen=True)
class EvaluatorSettings:
    """The target-game protocol run on the latest checkpoint."""

    games: int = 20
    max_steps: int = 1000  # steps per game (Tetris: pieces), the first episode of each
    every_s: float = 30.0


class RunWorld(Protocol):
    """What reading a stored run back needs of its world (every ``Domain`` is one)."""

    name: str

    def ppo_config(self, values: Mapping[str, Any]) -> Any:
        """The world's student configuration from stored values (unknown keys: ValueError)."""
        ...


@dataclass(frozen=True)
class RunSettings:
    """Everything a `dicode run` needs; stored as the run's config."""

    profile: str = "quick"
    domain: str = "tetris"
    seed: int = 0
    generator: GeneratorSettings = field(default_factory=GeneratorSettings)
    student: StudentSettings = field(default_factory=StudentSettings)
    evaluator: EvaluatorSettings = field(default_factory=EvaluatorSettings)
    archive: ArchiveConfig = field(default_factory=ArchiveConfig)
    # The student writes TensorBoard event files into the run's folder (``tensorboard/``).
    tensorboard: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "domain": self.domain,
            "seed": self.seed,
            "generator": asdict(self.generator),
            "student": self.student.to_dict(),
            "evaluator": asdict(self.evaluator),
            "archive": asdict(self.archive),
            "tensorboard": self.tensorboard,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], world: RunWorld) -> RunSettings:
        """Inverse of `to_dict` for a run of ``world``, which reads its student's config back
        (unknown keys are an error, so a typo cannot pass silently; so is another world's run).
        """
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown RunSettings settings: {sorted(unknown)}")
        if data.get("domain", world.name) != world.name:
            raise ValueError(f"a run of {data['domain']!r} read as one of {world.name!r}")
        student = dict(data.get("student", {}))
        return cls(
            profile=data.get("profile", "quick"),
            domain=world.name,
            seed=int(data.get("seed", 0)),
            generator=_build(GeneratorSettings, data.get("generator", {})),
            student=StudentSettings(
                ppo=world.ppo_config(student.pop("ppo", {})),
                curriculum=_build(CurriculumConfig, student.pop("curriculum", {})),
                **_known(StudentSettings, student),
            ),
            evaluator=_build(EvaluatorSettings, data.get("evaluator", {})),
            archive=_build(ArchiveConfig, data.get("archive", {})),
            tensorboard=bool(data.get("tensorboard", True)),  # runs stored before it: on
        )


def _build(kind: Any, values: dict[str, Any]) -> Any:
    return kind(**_known(kind, values))


def _known(kind: Any, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` unchanged when every key is a field of ``kind``; an error naming the others."""
    unknown = set(values) - {f.name for f in fields(kind)}
    if unknown:
        raise ValueError(f"unknown {kind.__name__} settings: {sorted(unknown)}")
    return values


def parse_overrides(kind: Any, items: list[str] | None) -> dict[str, Any]:
    """``KEY=JSON`` command-line items as values for the dataclass ``kind`` (``--set``);
    an unknown key or a value that is not JSON is a ``ValueError`` naming it."""
    values: dict[str, Any] = {}
    for item in items or []:
        key, _, text = item.partition("=")
        if key not in {f.name for f in fields(kind)}:
            raise ValueError(f"unknown {kind.__name__} key {key!r}")
        try:
            values[key] = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{key}: {text!r} is not a JSON value ({exc.msg})") from None
    return values


def config_from(kind: Any, values: dict[str, Any]) -> Any:
    """A world's student config from stored values (unknown keys: ValueError naming them)."""
    return _build(kind, dict(values))
