"""Every parameter of the archive's algorithms, in one typed, immutable object."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

CandidateRule = Literal["strict", "lenient"]
# What ranks levels for admission to the active set and for replay (`dicode.archive.transfer`).
LevelScore = Literal["learnability", "transfer"]
LEVEL_SCORES: tuple[LevelScore, ...] = ("learnability", "transfer")


@dataclass(frozen=True)
class ArchiveConfig:
    """Parameters of parent selection, the active set and the PLR replay sampler.

    Defaults follow DiCode (see docs/archive.md for the formulas).
    """

    # Parent selection ------------------------------------------------------------------
    # "strict": status A/B, fewer than `max_children` children, no child with status A/B/C.
    # "lenient": any level, whatever its status or children.
    candidate_rule: CandidateRule = "strict"
    # Use the lenient rule when the strict one leaves no candidate.
    fallback_to_lenient: bool = True
    # A strict parent has fewer children than this.
    max_children: int = 5
    # If set, sample only among the k candidates of highest learnability p(1−p).
    top_k: int | None = None

    # Active set --------------------------------------------------------------------------
    # Most levels the student keeps for replay; a newcomer enters if it beats the worst one.
    active_capacity: int = 100
    # Compare-and-swap attempts before an admission gives up (each retry re-reads the set).
    admission_retries: int = 50

    # PLR replay: P = (1−ρ)·h/Σh + ρ·(c−C)/Σ(c−C), h = (1/rank)^(1/β) ---------------------
    # ρ: weight of staleness against score rank.
    replay_staleness_coef: float = 0.3
    # β: temperature of the rank weights (smaller = greedier).
    replay_temperature: float = 1.0
    # Levels drawn per replay sample (DiCode: 16 per session, 15 + the target game).
    replay_batch: int = 16

    # Level score -------------------------------------------------------------------------
    # "learnability": p(1−p), as DiCode. "transfer": p(1−p)·2^clip(w·t, −2, 2), t the level's
    # transfer to the target game (`dicode.archive.transfer`): admission and replay favour the
    # levels whose sessions raised the target's figure. p(1−p) alone is the ablation.
    level_score: LevelScore = "learnability"
    # w: doublings of the priority per noise standard deviation of transfer.
    transfer_weight: float = 1.0

    def __post_init__(self) -> None:
        if self.candidate_rule not in ("strict", "lenient"):
            raise ValueError(
                f"candidate_rule must be 'strict' or 'lenient', got {self.candidate_rule!r}"
            )
        if self.max_children < 1:
            raise ValueError(f"max_children must be >= 1, got {self.max_children}")
        if self.top_k is not None and self.top_k < 1:
            raise ValueError(f"top_k must be >= 1 or None, got {self.top_k}")
        if self.active_capacity < 1:
            raise ValueError(f"active_capacity must be >= 1, got {self.active_capacity}")
        if self.admission_retries < 1:
            raise ValueError(f"admission_retries must be >= 1, got {self.admission_retries}")
        if not 0.0 <= self.replay_staleness_coef <= 1.0:
            raise ValueError(
                f"replay_staleness_coef must be in [0, 1], got {self.replay_staleness_coef}"
            )
        if not self.replay_temperature > 0.0:
            raise ValueError(f"replay_temperature must be > 0, got {self.replay_temperature}")
        if self.replay_batch < 1:
            raise ValueError(f"replay_batch must be >= 1, got {self.replay_batch}")
        if self.level_score not in LEVEL_SCORES:
            raise ValueError(
                f"level_score must be one of {', '.join(LEVEL_SCORES)}, got {self.level_score!r}"
            )
        # Negative would favour the levels whose sessions lowered the target's figure.
        if not (math.isfinite(self.transfer_weight) and self.transfer_weight >= 0.0):
            raise ValueError(f"transfer_weight must be finite and >= 0, got {self.transfer_weight}")
