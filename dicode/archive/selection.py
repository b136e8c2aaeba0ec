"""DiCode parent selection: which levels the teacher writes new levels from.

Candidates ("strict"): status A or B, fewer than ``max_children`` children, and no child with
status A/B/C — a level that is mastered enough to build on and whose offspring have not yet
produced anything learnable. "lenient": every level. Parents are drawn without replacement with
probability ∝ learnability p(1−p), p the level's success rate; optionally only among the top k.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from dicode.archive.config import ArchiveConfig, CandidateRule
from dicode.archive.graph import LevelColumns
from dicode.archive.sampling import weighted_sample_without_replacement
from dicode.archive.status import learnability_array

_STATUS_B = 1


def candidate_mask(
    columns: LevelColumns, rule: CandidateRule, max_children: int
) -> npt.NDArray[np.bool_]:
    """Which levels may be parents under ``rule``."""
    if rule == "lenient":
        return np.ones(columns.ids.shape[0], dtype=np.bool_)
    return (
        (columns.status <= _STATUS_B)
        & (columns.n_children < max_children)
        & (columns.n_good_children == 0)
    )


def parent_candidates(columns: LevelColumns, config: ArchiveConfig) -> npt.NDArray[np.int64]:
    """Ids of the levels parents are drawn from, after the configured fallback."""
    return columns.ids[_candidate_rows(columns, config)]


def select_parents(
    columns: LevelColumns, n: int, rng: np.random.Generator, config: ArchiveConfig
) -> npt.NDArray[np.int64]:
    """Up to ``n`` distinct parent ids, drawn ∝ learnability among the candidates.

    If every candidate has learnability 0 (all unmeasured, solved or failed) the draw is
    uniform among them. Returns fewer than ``n`` ids only when there are fewer candidates.
    """
    rows = _candidate_rows(columns, config)
    weights = learnability_array(columns.success_rate[rows])
    if config.top_k is not None and config.top_k < rows.shape[0]:
        # Highest learnability first; ties keep the older (lower row) level.
        keep = np.argsort(-weights, kind="stable")[: config.top_k]
        rows, weights = rows[keep], weights[keep]
    if not weights.any():
        weights = np.ones_like(weights)
    chosen = weighted_sample_without_replacement(weights, n, rng)
    return columns.ids[rows[chosen]]


def strict_in_force(columns: LevelColumns, config: ArchiveConfig) -> bool:
    """Whether the next draw is under the strict rule (configured, and some level qualifies)
    rather than the lenient fallback."""
    return config.candidate_rule == "strict" and bool(
        candidate_mask(columns, "strict", config.max_children).any()
    )


def _candidate_rows(columns: LevelColumns, config: ArchiveConfig) -> npt.NDArray[np.intp]:
    mask = candidate_mask(columns, config.candidate_rule, config.max_children)
    if not mask.any() and config.fallback_to_lenient:
        mask = candidate_mask(columns, "lenient", config.max_children)
    return np.flatnonzero(mask)
