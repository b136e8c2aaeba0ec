"""Does an experiment's order change with the budget: a longer-budget experiment read against its
shorter twin (same arms, same training seeds, same evaluation), for ``docs/results.md``.

Three readings, all rebuilt from the two runner-written figures files:

- **gain** — each arm's run figure at the longer budget minus the shorter one's, paired by
  training seed (95 % t-interval over the seeds both files hold);
- **gap change** — each arm's difference to the baseline at the longer budget minus the same
  difference at the shorter one, paired by seed (did the arm close on the baseline or fall
  further behind);
- **crossing** — at each evaluation of the longer runs, the arm's mean curve over its seeds
  against the baseline's (evaluations are matched by their index: the arms' step counts differ
  by a partial iteration), and per seed against the baseline run of the same seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarks.run_figures import (
    LAST,
    figures_by_seed,
    interval_text,
    mean,
    moved_word,
    paired_interval,
)


@dataclass(frozen=True)
class BudgetPair:
    """A longer-budget experiment's shorter twin and what else differs between them."""

    shorter: str
    differs: str  # in words: what changed besides the budget (the program that ran it, …)


LONGER_BUDGETS = {
    "maze_jaxued_60m": BudgetPair(
        "maze_jaxued",
        "the 20M runs used the host loops and the 60M runs the device programs, the same "
        "algorithms — `maze_jaxued_device` reran the DR arm as device programs on the same "
        "seeds at 20M",
    ),
    "maze_jaxued_250m": BudgetPair("maze_jaxued_60m", "only the budget"),
}


def _figures(document: dict[str, Any]) -> dict[str, dict[int, float]]:
    return figures_by_seed(document["runs"], document["summary"]["headline"])


def gains(longer: dict[str, Any], shorter: dict[str, Any]) -> list[dict[str, Any]]:
    """Per variant in both files: the longer budget's figure minus the shorter's, by seed."""
    long_figures, short_figures = _figures(longer), _figures(shorter)
    rows = []
    for variant, at_long in long_figures.items():
        at_short = short_figures.get(variant, {})
        seeds = sorted(set(at_long) & set(at_short))
        rows.append(_paired_row(variant, seeds, [at_long[s] for s in seeds],
                                [at_short[s] for s in seeds]))  # fmt: skip
    return rows


def gap_changes(longer: dict[str, Any], shorter: dict[str, Any]) -> list[dict[str, Any]]:
    """Per non-baseline variant: (arm − baseline) at the longer budget minus the same at the
    shorter, over the seeds where all four runs exist."""
    baseline = longer["baseline"]
    long_figures, short_figures = _figures(longer), _figures(shorter)
    long_base, short_base = long_figures.get(baseline, {}), short_figures.get(baseline, {})
    rows = []
    for variant, at_long in long_figures.items():
        if variant == baseline:
            continue
        at_short = short_figures.get(variant, {})
        seeds = sorted(set(at_long) & set(at_short) & set(long_base) & set(short_base))
        long_gaps = [at_long[s] - long_base[s] for s in seeds]
        short_gaps = [at_short[s] - short_base[s] for s in seeds]
        rows.append(_paired_row(variant, seeds, long_gaps, short_gaps))
    return rows


def _paired_row(
    variant: str, seeds: list[int], later: list[float], earlier: list[float]
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "variant": variant,
        "seeds": seeds,
        "per_seed": [a - b for a, b in zip(later, earlier, strict=True)],
    }
    if len(seeds) >= 2:  # one pair has no interval
        row |= paired_interval(later, earlier)
    return row


def crossings(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Per non-baseline variant: how its mean curve stands against the baseline's at each
    evaluation (above at how many, first above at which steps, the range of the difference),
    and per seed the evaluations where it was above the baseline run of the same seed."""
    baseline = document["baseline"]
    curves: dict[str, dict[int, list[list[float]]]] = {}
    for run in document["runs"]:
        if run.get("curve"):
            curves.setdefault(run["variant"], {})[int(run["seed"])] = run["curve"]
    base = curves.get(baseline, {})
    rows = []
    for variant, by_seed in curves.items():
        if variant == baseline or not base:
            continue
        points = min(len(c) for c in [*by_seed.values(), *base.values()])
        if points < 2:  # no trained evaluation yet
            continue
        arm_mean = [mean([c[i][1] for c in by_seed.values()]) for i in range(points)]
        base_mean = [mean([c[i][1] for c in base.values()]) for i in range(points)]
        # The first evaluation (step 0, an untrained policy) says nothing about an order.
        differences = [a - b for a, b in zip(arm_mean, base_mean, strict=True)][1:]
        first = next((i for i, d in enumerate(differences, start=1) if d > 0), None)
        per_seed = {
            seed: sum(curve[i][1] > base[seed][i][1] for i in range(1, points))
            for seed, curve in sorted(by_seed.items())
            if seed in base
        }
        rows.append(
            {
                "variant": variant,
                "evaluations": points - 1,
                "above": sum(d > 0 for d in differences),
                "first_above_steps": (
                    mean([c[first][0] for c in by_seed.values()]) if first is not None else None
                ),
                "lowest": min(differences),
                "highest": max(differences),
                "last": differences[-1],
                "per_seed_above": per_seed,
            }
        )
    return rows


def budget_lines(name: str, longer: dict[str, Any], shorter: dict[str, Any]) -> list[str]:
    """The markdown of experiment ``name``'s comparison with its twin in ``LONGER_BUDGETS``:
    gains, gap changes, crossings."""
    pair = LONGER_BUDGETS[name]
    headline, baseline = longer["summary"]["headline"], longer["baseline"]
    lines = [
        f"Against `{pair.shorter}` (the shorter budget; besides the budget: {pair.differs}), "
        f"paired by training seed ({headline}, last {LAST} evaluations; mean difference with its "
        "95 % t-interval, moved only where it excludes zero):",
        "",
        "| variant | reading | seeds | Δ (mean, 95 % CI) | per seed | moved? |",
        "|---|---|---|---|---|---|",
    ]
    readings = [("gain", gains(longer, shorter)),
                (f"gap to {baseline}, change", gap_changes(longer, shorter))]  # fmt: skip
    for reading, rows in readings:
        for row in rows:
            if not row["seeds"]:
                continue
            per_seed = ", ".join(f"{d:+.3g}" for d in row["per_seed"])
            paired = "diff" in row
            interval = interval_text(row) if paired else "— (one seed)"
            moved = moved_word(row if paired else None)
            seeds = ", ".join(str(s) for s in row["seeds"])
            lines.append(
                f"| {row['variant']} | {reading} | {seeds} | {interval} | {per_seed} | {moved} |"
            )
    lines += ["", *_crossing_lines(longer), ""]
    return lines


def _crossing_lines(document: dict[str, Any]) -> list[str]:
    rows = crossings(document)
    if not rows:
        return []
    baseline = document["baseline"]
    out = [
        f"Crossing: each arm's mean curve against {baseline}'s at the same evaluation (the "
        "untrained first one left out), and per seed the evaluations where the arm's run was "
        f"above {baseline}'s run of the same seed:",
        "",
        f"| variant | above {baseline} (evaluations) | first above at | difference, lowest / "
        f"highest / last | per seed above (seed: evaluations) |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        first = (
            f"{row['first_above_steps']:,.0f} env steps"
            if row["first_above_steps"] is not None
            else "never"
        )
        per_seed = ", ".join(f"{s}: {n}" for s, n in row["per_seed_above"].items()) or "—"
        out.append(
            f"| {row['variant']} | {row['above']} of {row['evaluations']} | {first} | "
            f"{row['lowest']:+.3g} / {row['highest']:+.3g} / {row['last']:+.3g} | {per_seed} |"
        )
    return out
