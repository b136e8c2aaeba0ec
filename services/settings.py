"""The configuration of one service run, stored with the run in the archive.

Profiles are named presets per domain (Tetris: ``quick`` for the embedded CPU loop, ``llm`` for
an LLM teacher; Craftax: ``smoke``, a short CPU check of the whole loop); everything is a plain
frozen dataclass so it round-trips through JSON into the runs table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from dicode.archive.config import ArchiveConfig
from dicode.student.config import PPOConfig
from dicode.student.craftax.config import CraftaxPPOConfig
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
    sandbox_retry_s: float = 30.0  # pause after an attempt the sandbox refused to run
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
class CraftaxStudentSettings:
    """How the Craftax student (PPO-RNN over the pool engine) trains and reports."""

    ppo: CraftaxPPOConfig = field(default_factory=CraftaxPPOConfig)
    curriculum: CurriculumConfig = field(default_factory=CurriculumConfig)
    iterations_per_session: int = 2
    checkpoint_every: int = 1
    keep_checkpoints: int = 3


@dataclass(frozen=True)
class EvaluatorSettings:
    """The target-game protocol run on the latest checkpoint."""

    games: int = 20
    piece_cap: int = 1000  # Tetris: pieces per game
    max_steps: int = 10_000  # Craftax: steps per game (the first episode of each)
    every_s: float = 30.0


@dataclass(frozen=True)
class RunSettings:
    """Everything a `dicode run` needs; stored as the run's config."""

    profile: str = "quick"
    domain: str = "tetris"
    seed: int = 0
    generator: GeneratorSettings = field(default_factory=GeneratorSettings)
    student: StudentSettings = field(default_factory=StudentSettings)  # Tetris
    craftax: CraftaxStudentSettings = field(default_factory=CraftaxStudentSettings)
    evaluator: EvaluatorSettings = field(default_factory=EvaluatorSettings)
    archive: ArchiveConfig = field(default_factory=ArchiveConfig)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSettings:
        """Inverse of `to_dict` (unknown keys are an error, so a typo cannot pass silently)."""
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown RunSettings settings: {sorted(unknown)}")
        student = dict(data.get("student", {}))
        craftax = dict(data.get("craftax", {}))
        return cls(
            profile=data.get("profile", "quick"),
            domain=data.get("domain", "tetris"),
            seed=int(data.get("seed", 0)),
            generator=_build(GeneratorSettings, data.get("generator", {})),
            student=StudentSettings(
                ppo=_build(PPOConfig, student.pop("ppo", {})),
                curriculum=_build(CurriculumConfig, student.pop("curriculum", {})),
                **_known(StudentSettings, student),
            ),
            craftax=CraftaxStudentSettings(
                ppo=_build(CraftaxPPOConfig, craftax.pop("ppo", {})),
                curriculum=_build(CurriculumConfig, craftax.pop("curriculum", {})),
                **_known(CraftaxStudentSettings, craftax),
            ),
            evaluator=_build(EvaluatorSettings, data.get("evaluator", {})),
            archive=_build(ArchiveConfig, data.get("archive", {})),
        )


def _build(kind: Any, values: dict[str, Any]) -> Any:
    return kind(**_known(kind, values))


def _known(kind: Any, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` unchanged when every key is a field of ``kind``; an error naming the others."""
    unknown = set(values) - {f.name for f in fields(kind)}
    if unknown:
        raise ValueError(f"unknown {kind.__name__} settings: {sorted(unknown)}")
    return values


# A student small enough for 2 CPU cores: 5 slots (1 target + 4 levels) x 16 environments.
_QUICK_PPO = PPOConfig(
    num_slots=5, envs_per_slot=16, pool_size=8, num_steps=32, train_piece_cap=500, seed=0
)

# Craftax on 2 CPU cores, to check the whole loop: 4 slots (the target + 3 levels, so the 7 seed
# levels are trained within 3 sessions and generated ones soon after) x 4 envs, a narrow GRU,
# short sessions, an 8-game evaluation capped at 500 steps, one generation attempt in flight.
_SMOKE_CRAFTAX = CraftaxPPOConfig(
    num_slots=4,
    envs_per_slot=4,
    pool_size=16,
    num_steps=32,
    num_minibatches=2,
    update_epochs=2,
    layer_size=64,
    seed=0,
)

PROFILES: dict[str, dict[str, RunSettings]] = {
    "tetris": {
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
    },
    "craftax": {
        "smoke": RunSettings(
            profile="smoke",
            domain="craftax",
            generator=GeneratorSettings(in_flight=1, max_untrained=4, pool_size=4),
            craftax=CraftaxStudentSettings(
                ppo=_SMOKE_CRAFTAX,
                curriculum=CurriculumConfig(target_fraction=0.25),
                iterations_per_session=2,
                checkpoint_every=5,  # sessions take ~1 s once compiled
            ),
            evaluator=EvaluatorSettings(games=8, max_steps=500, every_s=15.0),
            archive=ArchiveConfig(active_capacity=20),
        ),
    },
}


def known_profiles() -> list[str]:
    """Every ``domain/profile`` pair, for error messages and help."""
    return [f"{domain}/{name}" for domain, named in PROFILES.items() for name in named]


def profile(name: str, *, domain: str = "tetris", seed: int | None = None) -> RunSettings:
    """The named preset of ``domain`` (with another seed if given); an unknown pair lists the
    known ones."""
    settings = PROFILES.get(domain, {}).get(name)
    if settings is None:
        raise ValueError(
            f"unknown profile {name!r} for domain {domain!r}; known: {', '.join(known_profiles())}"
        )
    if seed is not None:
        settings = replace(
            settings,
            seed=seed,
            student=replace(settings.student, ppo=replace(settings.student.ppo, seed=seed)),
            craftax=replace(settings.craftax, ppo=replace(settings.craftax.ppo, seed=seed)),
        )
    return settings
