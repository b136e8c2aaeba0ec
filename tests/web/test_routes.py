"""The JSON the archive browser reads, over real HTTP on the same real archive the browser
tests use: the dashboard's series agree with the archive, the drawable lineage graph carries
each edge's instruction and folds big runs, the attempt that made a level is found."""

from __future__ import annotations

from datetime import datetime

import httpx

from dicode.archive.records import Edge, LevelNode
from services.api.lineage_view import RULE_ALL, collapse
from tests.web.archive import INSTRUCTIONS, ITERATIONS, STEPS_PER_ITERATION
from tests.web.conftest import Site


def test_dashboard_series_agree_with_the_archive(site: Site) -> None:
    run = site.runs["tetris"]
    board = httpx.get(f"{site.url}/api/runs/{run.name}/dashboard", timeout=30).json()
    assert (board["headline"], board["headline_label"]) == ("mean_lines", "target lines")
    assert [(p["iteration"], p["env_steps"], p["value"]) for p in board["target"]] == [
        (it, it * STEPS_PER_ITERATION, 1.0 + n) for n, it in enumerate(ITERATIONS)
    ]
    stats = board["stats"]
    assert board["status"][-1]["counts"] == stats["by_status"]  # the sweep ends where we are
    times = [datetime.fromisoformat(p["time"]) for p in board["status"]]
    assert times == sorted(times) and len(times) == 200
    stages = {(s["stage"], s["verdict"]): s["attempts"] for s in board["stages"]}
    assert stages == {("accepted", "accepted"): len(run.levels), ("sandbox", "rejected"): 1,
                      ("syntax", "rejected"): 1}
    assert sum(b["attempts"] for b in board["latency"]) == len(run.levels) + run.rejected
    assert [p["iteration"] for p in board["learnability"]] == list(ITERATIONS)
    assert len(board["active_scores"]) == stats["active"] == 1


def test_graph_view_labels_edges_with_their_instruction(site: Site) -> None:
    run = site.runs["maze"]
    view = httpx.get(f"{site.url}/api/runs/{run.name}/graph/view", timeout=30).json()
    assert (view["total"], view["rule"]) == (len(run.levels), RULE_ALL)
    assert {(e["parent"], e["child"]) for e in view["edges"]} == {
        (parent, child) for child, parent in run.children.items()
    }
    assert {e["instruction"] for e in view["edges"]} == set(INSTRUCTIONS)
    small = httpx.get(
        f"{site.url}/api/runs/{run.name}/graph/view", params={"max_nodes": 10}, timeout=30
    ).json()
    assert len(small["nodes"]) <= 10 and small["total"] == len(run.levels)
    assert sum(n["hidden"] for n in small["nodes"]) == len(run.levels) - len(small["nodes"])
    assert small["rule"].startswith(f"{len(small['nodes'])} of {len(run.levels)} levels drawn")


def test_the_attempt_that_made_a_level(site: Site) -> None:
    run = site.runs["craftax"]
    child = next(iter(run.children))
    page = httpx.get(
        f"{site.url}/api/runs/{run.name}/attempts",
        params={"level_id": child, "full": "true"},
        timeout=30,
    ).json()
    assert page["total"] == 1
    made = page["items"][0]
    assert made["level_id"] == child and made["parent_id"] == run.children[child]
    assert made["prompts"][1]["content"].startswith(f"Make level {run.children[child]}")


def _node(level: int, sampled: int) -> LevelNode:
    return LevelNode(level, "D", None, 0.0, False, None, sampled, "llm", None)


def test_collapse_keeps_roots_and_the_most_sampled_with_their_ancestors() -> None:
    # 0 → 1 → 2 → 3 (3 sampled most), 0 → 4, 5 (a second root) → 6
    edges = [Edge(0, 1), Edge(1, 2), Edge(2, 3), Edge(0, 4), Edge(5, 6)]
    levels = [_node(i, {3: 9, 6: 1}.get(i, 0)) for i in range(7)]
    view = collapse(levels, edges, max_nodes=6)
    assert [n.id for n in view.levels] == [0, 1, 2, 3, 5, 6]
    assert view.hidden == {0: 1}  # level 4 folded into its parent
    assert Edge(0, 4) not in view.edges and Edge(2, 3) in view.edges
    tight = collapse(levels, edges, max_nodes=3)
    assert [n.id for n in tight.levels] == [0, 5, 6]
    assert tight.hidden == {0: 4}
    assert collapse(levels, edges, max_nodes=7).rule == RULE_ALL
