"""The configuration of one service run, stored with the run in the archive.

Profiles are named presets (``quick`` for the embedded CPU loop, ``llm`` for an LLM teacher);
everything is a plain frozen dataclass so it round-trips through JSON into the runs table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from dicode.archive.config import ArchiveConfig
from dicode.student.config import PPOConfig
from dicode.student.curriculum import CurriculumConfig


@dataclass(frozen=True)
class GeneratorSettings:
    """How the generator proposes levels."""

    teacher: str = "mutation"
    in_flight: int = 2  # attempts running at once
    max_untrained: int = 16  # back-pressure: pause while this many new levels await training
    pool_size: int = 8  # initial states per level bundle
    rollout_steps: int = 150  # pieces per validation rollout
    warm_workers: int = 1  # idle sandbox workers kept ready
    poll_s: float = 1.0  # wait between checks while paused
    # False: open loop — parents uniform over all levels, instruction uniform, and the teacher
    # sees no performance (DiCode-OL and the domain-randomisation baselines).
    feedback: bool = True
    teacher_options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StudentSettings:
    """How the student trains and how often it reports."""

    ppo: PPOConfig = field(default_factory=PPOConfig)
    curriculum: CurriculumConfig = field(default_factory=CurriculumConfig)
    iterations_per_session: int = 4  # PPO iterations with fixed slots
    checkpoint_every: int = 2  # sessions between checkpoints
    keep_checkpoints: int = 3  # checkpoint files kept on disk (rows stay in the archive)


@dataclass(frozen=True)
class EvaluatorSettings:
    """The target-game protocol run on the latest checkpoint."""

    games: int = 20
    piece_cap: int = 1000
    every_s: float = 30.0


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSettings:
        """Inverse of `to_dict` (unknown keys are an error, so a typo cannot pass silently)."""
        student = dict(data.get("student", {}))
        return cls(
            profile=data.get("profile", "quick"),
            domain=data.get("domain", "tetris"),
            seed=int(data.get("seed", 0)),
            generator=_build(GeneratorSettings, data.get("generator", {})),
            student=StudentSettings(
                ppo=_build(PPOConfig, student.pop("ppo", {})),
                curriculum=_build(CurriculumConfig, student.pop("curriculum", {})),
                **student,
            ),
            evaluator=_build(EvaluatorSettings, data.get("evaluator", {})),
            archive=_build(ArchiveConfig, data.get("archive", {})),
        )


def _build(kind: Any, values: dict[str, Any]) -> Any:
    known = {f.name for f in fields(kind)}
    unknown = set(values) - known
    if unknown:
        raise ValueError(f"unknown {kind.__name__} settings: {sorted(unknown)}")
    return kind(**values)


# A student small enough for 2 CPU cores: 5 slots (1 target + 4 levels) x 16 environments.
_QUICK_PPO = PPOConfig(
    num_slots=5, envs_per_slot=16, pool_size=8, num_steps=32, train_piece_cap=500, seed=0
)

PROFILES: dict[str, RunSettings] = {
    "quick": RunSettings(
        profile="quick",
        student=StudentSettings(ppo=_QUICK_PPO),
        evaluator=EvaluatorSettings(games=20, piece_cap=500, every_s=45.0),
        archive=ArchiveConfig(active_capacity=100),
    ),
    "llm": RunSettings(
        profile="llm",
        generator=GeneratorSettings(teacher="llm", in_flight=4, max_untrained=16),
        student=StudentSettings(ppo=_QUICK_PPO),
        evaluator=EvaluatorSettings(games=20, piece_cap=1000, every_s=60.0),
    ),
}


def profile(name: str, *, seed: int | None = None) -> RunSettings:
    """The named preset (with another seed if given); unknown names list the known ones."""
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; known: {', '.join(sorted(PROFILES))}")
    settings = PROFILES[name]
    if seed is not None:
        settings = replace(
            settings,
            seed=seed,
            student=replace(settings.student, ppo=replace(settings.student.ppo, seed=seed)),
        )
    return settings
