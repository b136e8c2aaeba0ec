"""The lineage graph a browser can draw: every level when the run is small, otherwise the
most-trained levels with their ancestors, the rest collapsed into counts on their nearest kept
ancestor (so the picture stays one connected family tree)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dicode.archive.records import Edge, LevelNode

RULE_ALL = "every level is drawn"
RULE_COLLAPSED = (
    "{shown:,} of {total:,} levels drawn: the seed levels, then the most-sampled levels with "
    "all their ancestors; every other level is folded into the +n count of its nearest drawn "
    "ancestor"
)


@dataclass(frozen=True)
class CollapsedGraph:
    levels: tuple[LevelNode, ...]
    edges: tuple[Edge, ...]
    hidden: dict[int, int]  # kept level -> descendants folded into it
    rule: str


def collapse(
    levels: Sequence[LevelNode], edges: Sequence[Edge], max_nodes: int
) -> CollapsedGraph:
    """At most ``max_nodes`` levels (roots first, then by times sampled, then oldest), closed
    under ancestors; hidden levels counted on their nearest kept ancestor."""
    if len(levels) <= max_nodes:
        return CollapsedGraph(tuple(levels), tuple(edges), {}, RULE_ALL)
    parents: dict[int, list[int]] = {}
    for edge in edges:
        parents.setdefault(edge.child, []).append(edge.parent)
    kept: set[int] = set()
    ranked = sorted(
        levels, key=lambda n: (n.id in parents, -n.times_sampled, n.id)
    )  # roots (no parent) sort first
    for node in ranked:
        family = _with_ancestors(node.id, parents, kept)
        if len(kept) + len(family) > max_nodes:
            continue
        kept |= family
    hidden: dict[int, int] = {}
    # Levels are inserted after their parents, so ascending ids walk parents first.
    anchor: dict[int, int] = {level: level for level in kept}
    for node in sorted(levels, key=lambda n: n.id):
        if node.id in kept:
            continue
        first = min(parents.get(node.id, ()), default=None)
        home = anchor.get(first) if first is not None else None
        if home is None:
            continue  # an orphan whose roots did not fit: only the total mentions it
        anchor[node.id] = home
        hidden[home] = hidden.get(home, 0) + 1
    shown = tuple(n for n in levels if n.id in kept)
    return CollapsedGraph(
        levels=shown,
        edges=tuple(e for e in edges if e.parent in kept and e.child in kept),
        hidden=hidden,
        rule=RULE_COLLAPSED.format(shown=len(shown), total=len(levels)),
    )


def _with_ancestors(level: int, parents: dict[int, list[int]], kept: set[int]) -> set[int]:
    family: set[int] = set()
    stack = [level]
    while stack:
        current = stack.pop()
        if current in kept or current in family:
            continue
        family.add(current)
        stack.extend(parents.get(current, ()))
    return family
