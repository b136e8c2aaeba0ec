"""A progress bar of environment steps for long work (``dicode train``, the experiment runner).

It shows the steps done of the budget, steps per second and the time left, and only on a real
terminal: piped into a file or a CI log it shows nothing, and the work's own one-line prints
are the record there.
"""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class _StepsPerSecond(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.speed
        shown = "…" if speed is None else f"{speed:,.0f}"
        return Text(f"{shown} steps/s", style="progress.data.speed")


def step_progress(console: Console | None = None, window_s: float = 30.0) -> Progress:
    """A rich ``Progress`` for tasks counted in env steps; disabled unless ``console`` (default:
    stdout) is a terminal. Steps per second and the time left are measured over the last
    ``window_s`` seconds of updates (longer for work that reports seldom)."""
    console = console or Console()
    # Both: FORCE_COLOR makes rich call a CI log a terminal, and that must stay free of bars.
    on_terminal = console.is_terminal and console.file.isatty()
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} env steps"),
        _StepsPerSecond(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        disable=not on_terminal,
        speed_estimate_period=window_s,
    )
