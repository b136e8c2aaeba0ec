"""Pictures of the experiments' figures files, one SVG per experiment with two panels:

(a) each arm's learning curve against env steps: the mean over seeds at every evaluation, with a
    band that is the 95 % t-interval of that mean (the seeds' sample std, n − 1 degrees of
    freedom; no band where one seed was evaluated);
(b) each run's figure (the mean of its last three evaluations, as in the tables) as a point per
    seed, the arm's mean as a bar across them, and each arm's difference to the baseline with
    its 95 % Welch interval, drawn from the baseline's mean: an arm moved where its interval
    stays off the baseline's dashed line.

    PYTHONPATH=$PWD python benchmarks/results_plots.py   # results_tables.py also draws them

The numbers come from ``services.experiment_view`` (the API's experiments view draws the same).
Every experiment document in ``docs/figures`` is drawn to ``docs/figures/plots/<name>.svg``;
unchanged inputs give byte-identical files (a fixed hash salt for the SVG's ids, no date).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import EngFormatter
from matplotlib.typing import ColorType

from dicode.provenance import FIGURES
from services.experiment_view import Arm, Experiment, experiment, experiment_documents
from services.run_figures import LAST

PLOTS = FIGURES / "plots"
COLOURS = mpl.color_sequences["tab10"]
CAPTION = (
    "(a) mean over seeds; band: 95 % t-interval of the mean (sample std, n − 1).\n"
    f"(b) dots: each run's mean of its last {LAST} evaluations; bar: the arm's mean; error bar: "
    "Δ vs the baseline with its 95 % Welch interval, drawn from the baseline's mean (dashed)."
)


def draw(shown: Experiment) -> Figure:
    """The two panels of one experiment (no pyplot: no global figure state)."""
    figure = Figure(figsize=(12, 4.8), layout="constrained")
    curves, runs = figure.subplots(1, 2, width_ratios=(3, 2))
    colours = {arm.name: COLOURS[i % len(COLOURS)] for i, arm in enumerate(shown.arms)}
    _curves(curves, shown, colours)
    _run_figures(runs, shown, colours)
    figure.suptitle(f"{shown.name}: {shown.headline} (baseline {shown.baseline})")
    figure.supxlabel(CAPTION, fontsize=7)
    return figure


def _label(arm: Arm, baseline: str) -> str:
    """The arm's name, how many seeds its curve averages, and whether it is the baseline."""
    seeds = len(arm.seeds) - arm.without_curve
    role = ", baseline" if arm.name == baseline else ""
    return f"{arm.name} ({seeds} seed{'s' * (seeds != 1)}{role})"


def _curves(axes: Axes, shown: Experiment, colours: dict[str, ColorType]) -> None:
    axes.set_title("(a) learning curves", loc="left")
    axes.set_xlabel("env steps")
    axes.xaxis.set_major_formatter(EngFormatter())
    axes.set_ylabel(shown.headline)
    drawn = [arm for arm in shown.arms if arm.curve]
    for arm in drawn:
        steps = [p.env_steps for p in arm.curve]
        axes.plot(steps, [p.mean for p in arm.curve], color=colours[arm.name],
                  label=_label(arm, shown.baseline))  # fmt: skip
        # NaN where one seed was evaluated: the band breaks there instead of shrinking to 0.
        low = [float("nan") if p.low is None else p.low for p in arm.curve]
        high = [float("nan") if p.high is None else p.high for p in arm.curve]
        axes.fill_between(steps, low, high, color=colours[arm.name], alpha=0.18, linewidth=0)
    missing = [
        f"{arm.name} ({arm.without_curve} run{'s' * (arm.without_curve != 1)})"
        for arm in shown.arms
        if arm.without_curve
    ]
    if missing:
        axes.text(0.02, 0.02, "no curve recorded: " + ", ".join(missing), fontsize=7,
                  transform=axes.transAxes, va="bottom")  # fmt: skip
    if drawn:
        axes.legend(fontsize=7, loc="best")
    else:
        axes.text(0.5, 0.5, "no learning curve in the records", ha="center", va="center",
                  transform=axes.transAxes)  # fmt: skip
        axes.set_xticks([])
        axes.set_yticks([])


def _run_figures(axes: Axes, shown: Experiment, colours: dict[str, ColorType]) -> None:
    """One row per arm in the tables' order, the first on top; the Δ and its interval under the
    arm's name."""
    axes.set_title(f"(b) run figures (last {LAST} evaluations)", loc="left")
    axes.set_xlabel(shown.headline)
    base = next((arm for arm in shown.arms if arm.name == shown.baseline), None)
    if base is not None:
        axes.axvline(base.mean, color="0.4", linestyle="--", linewidth=0.8)
    labels = []
    for row, arm in enumerate(shown.arms):
        colour = colours[arm.name]
        # Seeds one above the other, so equal figures stay visible.
        spread = [row - 0.2 + 0.4 * i / max(1, len(arm.seeds) - 1) for i in range(len(arm.seeds))]
        axes.scatter([s.figure for s in arm.seeds], spread, color=colour, s=14, zorder=3)
        axes.vlines(arm.mean, row - 0.25, row + 0.25, color=colour, linewidth=2)
        label = arm.name
        versus = arm.vs_baseline
        if versus is not None and base is not None:
            error = [[versus.diff - versus.low], [versus.high - versus.diff]]
            axes.errorbar(base.mean + versus.diff, row + 0.35, xerr=error, color=colour,
                          capsize=3, fmt="o", markersize=3)  # fmt: skip
            label += f"\nΔ {versus.diff:+.3g} [{versus.low:+.3g}, {versus.high:+.3g}]"
        labels.append(label)
    axes.set_yticks(range(len(labels)), labels, fontsize=7)
    axes.set_ylim(len(labels) - 0.4, -0.6)  # the first arm on top


def write_plot(shown: Experiment, out: Path) -> Path:
    """Draw ``shown`` to ``out/<name>.svg``, the same bytes for the same experiment."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{shown.name}.svg"
    # Text stays text (searchable, smaller), and ids come from a fixed salt, not a random one.
    with mpl.rc_context({"svg.hashsalt": "dicode", "svg.fonttype": "none", "font.size": 9}):
        draw(shown).savefig(path, format="svg", metadata={"Date": None})
    return path


def write_plots(figures: Path = FIGURES, out: Path = PLOTS) -> dict[str, Path]:
    """One picture per experiment document of ``figures``, by name."""
    return {
        name: write_plot(experiment(name, document), out)
        for name, document in experiment_documents(figures).items()
    }


if __name__ == "__main__":
    print("drew:", ", ".join(write_plots()) or "nothing (no experiment file yet)")
