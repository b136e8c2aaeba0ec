"""A run's figure and a table's verdict, as pure functions over the experiments' records
(here, in the package, because the API's experiments view reads them as the tables do).

- A run's figure is the **mean of its last three evaluations** (`LAST`), the final one kept
  beside it: one greedy evaluation on Tetris has a standard error of 25–30 lines (per-game
  spread 100–140 over 20 games), so the last evaluation alone can reorder two arms.
- Two arms differ ("moved") only when the 95 % interval of the difference **excludes zero**
  (`excludes_zero`): Welch's t for independent arms, the paired t over training seeds for an
  ablation (same seed, one part changed).
- A record carries a **digest** of its own content, computed by the runner when it writes it
  (`record_digest`); a record edited by hand no longer matches it (`edited`), and the **command
  line** that ran it (`command_line`).
"""

from __future__ import annotations

import hashlib
import json
import math
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

LAST = 3  # evaluations averaged into a run's figure
LEVEL = 0.95  # the intervals' confidence


@dataclass(frozen=True)
class Ablation:
    """One part of an arm, measured by the arm against a reference that lacks it."""

    part: str  # what the arm changes, in words
    arm: str
    reference: str


def last_mean(curve: Sequence[Sequence[float]], last: int = LAST) -> float:
    """Mean of the headline over the last ``last`` points of a curve ((steps, value) pairs)."""
    if not curve:
        raise ValueError("an empty curve has no last evaluations")
    values = [float(point[1]) for point in curve[-last:]]
    return sum(values) / len(values)


def run_figure(run: dict[str, Any], headline: str) -> float:
    """A record's figure: its stored last-three mean, else one computed from its curve (records
    written before the runner stored it), else its final evaluation (no curve kept)."""
    stored = run.get("headline", {}).get("last_mean")
    if stored is not None:
        return float(stored)
    if run.get("curve"):
        return last_mean(run["curve"])
    return float(run["figures"][headline])


def headline_figures(curve: Sequence[Sequence[float]], final: float) -> dict[str, Any]:
    """What a record stores of its headline: the last-three mean, those three, the final."""
    tail = [float(point[1]) for point in curve[-LAST:]] or [final]
    return {"last_mean": sum(tail) / len(tail), "last": tail, "final": final, "n_last": LAST}


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def sample_std(values: Sequence[float]) -> float:
    """Sample standard deviation (n − 1); 0 for a single value."""
    if len(values) < 2:
        return 0.0
    m = mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def welch_interval(a: Sequence[float], b: Sequence[float], level: float = LEVEL) -> dict[str, Any]:
    """mean(a) − mean(b) with its ``level`` interval (Welch's unequal-variance t)."""
    from scipy import stats

    va, vb = sample_std(a) ** 2 / len(a), sample_std(b) ** 2 / len(b)
    diff = mean(a) - mean(b)
    se = math.sqrt(va + vb)
    if se == 0:
        return _verdict({"diff": diff, "low": diff, "high": diff, "df": float("inf")})
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    return _verdict({"diff": diff, "low": diff - half, "high": diff + half, "df": df})


def paired_interval(a: Sequence[float], b: Sequence[float], level: float = LEVEL) -> dict[str, Any]:
    """Mean of the paired differences a_i − b_i with its ``level`` t-interval (n − 1 df)."""
    from scipy import stats

    if len(a) != len(b) or len(a) < 2:
        raise ValueError("a paired interval needs two equally long lists of at least 2")
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    diff, se = mean(diffs), sample_std(diffs) / math.sqrt(len(diffs))
    half = float(stats.t.ppf(0.5 + level / 2, len(diffs) - 1)) * se
    return _verdict(
        {"diff": diff, "low": diff - half, "high": diff + half, "df": float(len(diffs) - 1)}
    )


def excludes_zero(interval: dict[str, Any]) -> bool:
    """Did the difference move: is zero outside the interval (its bounds excluded)?"""
    return bool(interval["low"] > 0 or interval["high"] < 0)


def _verdict(interval: dict[str, Any]) -> dict[str, Any]:
    return interval | {"moved": excludes_zero(interval)}


def moved_word(interval: dict[str, Any] | None) -> str:
    """A table's verdict in words: "moved" only when the interval excludes zero."""
    if interval is None:
        return "—"
    return "**moved**" if excludes_zero(interval) else "no (interval spans 0)"


def interval_text(interval: dict[str, Any]) -> str:
    """A difference with its interval as the tables print it: ``+0.1 [-0.02, +0.22]``."""
    return f"{interval['diff']:+.3g} [{interval['low']:+.3g}, {interval['high']:+.3g}]"


def figures_by_seed(runs: Sequence[dict[str, Any]], headline: str) -> dict[str, dict[int, float]]:
    """Each variant's run figures (``run_figure``), keyed by training seed."""
    figures: dict[str, dict[int, float]] = {}
    for run in runs:
        figures.setdefault(run["variant"], {})[int(run["seed"])] = run_figure(run, headline)
    return figures


def summarise(
    runs: list[dict[str, Any]],
    headline: str,
    baseline: str,
    ablations: Sequence[Ablation] = (),
) -> dict[str, Any]:
    """Per variant: n, mean and sample std of the run figures (last-three means) with the
    finals' mean beside; against the baseline: Welch's interval; per ablation: the paired
    interval over the seeds both arms ran."""
    figures = figures_by_seed(runs, headline)
    finals: dict[str, list[float]] = {}
    for run in runs:
        finals.setdefault(run["variant"], []).append(float(run["figures"][headline]))
    summary: dict[str, Any] = {
        "headline": headline,
        "figure": f"mean of the last {LAST} evaluations",
        "baseline": baseline,
        "variants": {},
    }
    base = list(figures.get(baseline, {}).values())
    for name, by_seed in figures.items():
        values = list(by_seed.values())
        entry: dict[str, Any] = {
            "n": len(values),
            "mean": mean(values),
            "std": sample_std(values),
            "final_mean": mean(finals[name]),
            "final_std": sample_std(finals[name]),
        }
        if name != baseline and len(values) > 1 and len(base) > 1:
            entry["vs_baseline"] = welch_interval(values, base)
        summary["variants"][name] = entry
    rows = []
    for ablation in ablations:
        arm, ref = figures.get(ablation.arm, {}), figures.get(ablation.reference, {})
        seeds = sorted(set(arm) & set(ref))
        if len(seeds) < 2:
            continue
        interval = paired_interval([arm[s] for s in seeds], [ref[s] for s in seeds])
        per_seed = [arm[s] - ref[s] for s in seeds]
        rows.append(
            {"part": ablation.part, "arm": ablation.arm, "reference": ablation.reference,
             "seeds": seeds, "per_seed": per_seed, **interval}
        )  # fmt: skip
    if rows:
        summary["ablations"] = rows
    return summary


def content_digest(content: Any) -> str:
    """SHA-256 of JSON-able ``content`` written canonically (keys sorted; other objects as
    their ``str``): equal content, equal digest."""
    return hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()


def record_digest(entry: dict[str, Any]) -> str:
    """SHA-256 of a record's content (its ``digest`` field left out), as the runner wrote it."""
    return content_digest({k: v for k, v in entry.items() if k != "digest"})


def edited(entry: dict[str, Any]) -> bool:
    """A record whose content no longer matches the digest the runner stored (records written
    before digests have none, and are not judged)."""
    return "digest" in entry and entry["digest"] != record_digest(entry)


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command as typed (the runner's own ``sys.argv``), for every record it writes."""
    return "PYTHONPATH=$PWD python " + shlex.join(sys.argv if argv is None else argv)
