"""Compare two lineage views (e.g. incremental vs. freshly loaded)."""

from __future__ import annotations

import numpy as np

from dicode.archive.graph import LineageView


def assert_same_view(a: LineageView, b: LineageView) -> None:
    assert set(a.graph.nodes) == set(b.graph.nodes)
    assert set(a.graph.edges) == set(b.graph.edges)
    for level_id in a.graph.nodes:
        assert a.graph.nodes[level_id] == b.graph.nodes[level_id], level_id
    ca, cb = a.columns(), b.columns()
    oa, ob = np.argsort(ca.ids), np.argsort(cb.ids)
    for field in (
        "ids",
        "status",
        "success_rate",
        "score",
        "active",
        "last_sampled",
        "n_children",
        "n_good_children",
    ):
        np.testing.assert_array_equal(getattr(ca, field)[oa], getattr(cb, field)[ob], field)
