"""The gate: reward shaping only accepts a judge whose benchmark shows it can discriminate.

The field report shaped rewards with a judge that tied 10 of 15 best-vs-worst pairs; weighted
by 0.2 it added a near-constant to every step. The gate reads a ``BenchmarkReport`` and refuses
such a judge with the figures in the message.
"""

from __future__ import annotations

from dataclasses import dataclass

from dicode.domains.tetris.judges.benchmark import BenchmarkReport


@dataclass(frozen=True)
class GateThresholds:
    """Minimum discrimination a judge needs before its scores may shape rewards."""

    min_pairwise_accuracy: float = 0.8  # ties and errors count half (chance = 0.5)
    max_tie_rate: float = 0.2  # share of clearly separated pairs the judge could not order
    max_error_rate: float = 0.2  # share of judge calls that gave no usable answer
    min_states: int = 10  # fewer states than this is not evidence


class JudgeRejected(ValueError):
    """A judge failed the gate; the message names every failed threshold with its figure."""


def gate_failures(report: BenchmarkReport, thresholds: GateThresholds) -> list[str]:
    """Human-readable reasons the report fails the thresholds (empty when it passes)."""
    failures = []
    if report.states < thresholds.min_states:
        failures.append(f"only {report.states} states benchmarked (need ≥ {thresholds.min_states})")
    if report.pairwise_accuracy < thresholds.min_pairwise_accuracy:
        failures.append(
            f"pairwise accuracy {report.pairwise_accuracy:.3f} < "
            f"{thresholds.min_pairwise_accuracy:.3f}"
        )
    if report.tie_rate > thresholds.max_tie_rate:
        failures.append(f"tie rate {report.tie_rate:.3f} > {thresholds.max_tie_rate:.3f}")
    if report.error_rate > thresholds.max_error_rate:
        failures.append(f"error rate {report.error_rate:.3f} > {thresholds.max_error_rate:.3f}")
    return failures


def admit(report: BenchmarkReport, thresholds: GateThresholds | None = None) -> None:
    """Raise ``JudgeRejected`` unless the report meets the thresholds."""
    thresholds = thresholds or GateThresholds()
    failures = gate_failures(report, thresholds)
    if failures:
        bw = report.best_vs_worst
        raise JudgeRejected(
            f"judge {report.judge!r} refused for reward shaping: {'; '.join(failures)}. "
            f"Best vs worst over {bw['n']}: better {bw['correct']}, tied {bw['tie']}, "
            f"worse {bw['wrong']}, errors {bw['error']} (mode {report.settings['mode']})."
        )
