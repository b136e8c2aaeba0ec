"""DiCode parent selection: the strict and lenient rules and learnability sampling."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.archive.config import ArchiveConfig
from dicode.archive.selection import parent_candidates, select_parents
from tests.archive.graphs import changes_of, view_of

STRICT = ArchiveConfig()

# 1: A, five D children          -> excluded (too many children)
# 2: B, one child with status C  -> excluded (has a learnable child)
# 3: B, two D children           -> candidate
# 4: A, no children              -> candidate
# 5: C, 6: D, 7: unmeasured      -> excluded (status)
RATES = {1: 0.8, 2: 0.6, 3: 0.55, 4: 0.9, 5: 0.3, 6: 0.1, 7: None}
RATES |= {10 + k: 0.0 for k in range(5)} | {20: 0.3, 30: 0.1, 31: None}
EDGES = [(1, 10 + k) for k in range(5)] + [(2, 20), (3, 30), (3, 31)]


def test_strict_candidates_follow_the_rules() -> None:
    view = view_of(RATES, EDGES)
    assert sorted(parent_candidates(view.columns(), STRICT).tolist()) == [3, 4]


def test_a_child_turning_learnable_removes_its_parent() -> None:
    view = view_of(RATES, EDGES)
    view.apply(changes_of({30: 0.5}))  # 3's child reaches B: 3 drops out, 30 itself qualifies
    assert sorted(parent_candidates(view.columns(), STRICT).tolist()) == [4, 30]
    view.apply(changes_of({30: 0.0}))
    assert sorted(parent_candidates(view.columns(), STRICT).tolist()) == [3, 4]


def test_lenient_takes_everything_and_is_the_fallback() -> None:
    view = view_of(RATES, EDGES)
    lenient = ArchiveConfig(candidate_rule="lenient")
    assert sorted(parent_candidates(view.columns(), lenient).tolist()) == sorted(RATES)
    nothing_strict = view_of({1: 0.1, 2: None}, [])
    assert sorted(parent_candidates(nothing_strict.columns(), STRICT).tolist()) == [1, 2]
    no_fallback = ArchiveConfig(fallback_to_lenient=False)
    assert parent_candidates(nothing_strict.columns(), no_fallback).tolist() == []
    assert (
        select_parents(nothing_strict.columns(), 3, np.random.default_rng(0), no_fallback).size == 0
    )


def test_draws_are_proportional_to_learnability() -> None:
    # Candidates 3 (p=0.55, w=0.2475) and 4 (p=0.9, w=0.09): first pick ∝ w.
    view = view_of(RATES, EDGES)
    rng = np.random.default_rng(3)
    firsts = [select_parents(view.columns(), 1, rng, STRICT)[0] for _ in range(20_000)]
    share = np.mean(np.array(firsts) == 3)
    assert share == pytest.approx(0.2475 / (0.2475 + 0.09), abs=0.01)


def test_seeded_and_top_k() -> None:
    rates = {i: r for i, r in enumerate(np.linspace(0.5, 1.0, 40).tolist())}
    view = view_of(rates, [])
    one = select_parents(view.columns(), 10, np.random.default_rng(5), STRICT)
    two = select_parents(view.columns(), 10, np.random.default_rng(5), STRICT)
    np.testing.assert_array_equal(one, two)
    top3 = ArchiveConfig(top_k=3)
    best = set(select_parents(view.columns(), 10, np.random.default_rng(5), top3).tolist())
    assert best == {0, 1, 2}  # p = 0.5, 0.513, 0.526: the most learnable


def test_all_zero_learnability_falls_back_to_uniform() -> None:
    view = view_of({i: 1.0 for i in range(4)}, [])  # all solved: p(1-p) = 0
    rng = np.random.default_rng(0)
    counts = np.zeros(4)
    for _ in range(4000):
        counts[select_parents(view.columns(), 1, rng, STRICT)[0]] += 1
    np.testing.assert_allclose(counts / 4000, 0.25, atol=0.03)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.floats(0, 1)), min_size=1, max_size=60),
    st.integers(1, 20),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["strict", "lenient"]),
)
def test_parents_are_distinct_candidates(rates, n: int, seed: int, rule: str) -> None:
    view = view_of(dict(enumerate(rates)), [(i, i + 1) for i in range(0, len(rates) - 1, 3)])
    config = ArchiveConfig(candidate_rule=rule)  # type: ignore[arg-type]
    candidates = set(parent_candidates(view.columns(), config).tolist())
    chosen = select_parents(view.columns(), n, np.random.default_rng(seed), config).tolist()
    assert len(chosen) == len(set(chosen)) == min(n, len(candidates))
    assert set(chosen) <= candidates
    # Zero-learnability candidates come only after every positive one is taken.
    weights = {i: (r or 0) * (1 - (r or 0)) for i, r in enumerate(rates)}
    positives = sum(1 for c in candidates if weights[c] > 0)
    assert all(weights[c] > 0 for c in chosen[: min(positives, len(chosen))])
