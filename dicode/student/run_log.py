"""A run's log for TensorBoard: scalars against environment steps, as event files.

The training loops (``dicode.student.loop.train``, the maze's literature loops) report through
the small :class:`RunLog` protocol, so a caller that passes no log gets nothing written and the
library imports no writer. :class:`TensorBoardLog` writes TensorBoard's event files with
tensorboardX; ``tensorboard --logdir <folder>`` shows them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, SupportsFloat


class RunLog(Protocol):
    """Where a training loop reports; every ``step`` is in environment steps."""

    def scalars(self, step: int, values: Mapping[str, SupportsFloat]) -> None:
        """Each value under its tag (e.g. ``ppo/entropy``) at ``step``."""
        ...

    def figures(self, step: int, figures: Mapping[str, Any]) -> None:
        """A target protocol's figures at ``step``: the numbers under ``target/``, the per-skill
        ones (``figures["skills"]``) under ``skills/``; other data (e.g. start boards) is left
        out."""
        ...

    def close(self) -> None:
        """Write out whatever is pending."""
        ...


def figure_scalars(figures: Mapping[str, Any]) -> dict[str, float]:
    """The numeric figures of a target protocol as tags: ``target/<name>``, ``skills/<name>``."""
    numbers = {f"target/{k}": v for k, v in figures.items() if isinstance(v, int | float)}
    skills = {f"skills/{k}": v for k, v in figures.get("skills", {}).items()}
    return numbers | skills


class TensorBoardLog:
    """A :class:`RunLog` writing TensorBoard event files into ``folder``.

    ``resume_step``: the step of the checkpoint a resumed run continues from; TensorBoard then
    hides what an earlier process wrote after it (the sessions after its last checkpoint, which
    are trained again). Without it the run starts over: earlier event files in ``folder`` are
    removed, as a fresh run's curve and archive replace the old ones.
    """

    def __init__(self, folder: Path, resume_step: int | None = None) -> None:
        from tensorboardX import SummaryWriter

        if not resume_step:
            for old in folder.glob("events.out.tfevents.*"):
                old.unlink()
        # TensorBoard drops the earlier events at or after ``purge_step``: what was logged up to
        # the checkpoint stays. Flushed every few seconds so a live run can be watched.
        purge = resume_step + 1 if resume_step else None
        # tensorboardX names a file by the second it opened it: a writer opened within the same
        # second (a quick resume) would overwrite it, so the nanoseconds follow, in order.
        self._writer = SummaryWriter(
            str(folder), purge_step=purge, flush_secs=10, filename_suffix=f".{time.time_ns()}"
        )

    def scalars(self, step: int, values: Mapping[str, SupportsFloat]) -> None:
        for tag, value in values.items():
            number = float(value)
            if math.isfinite(number):  # NaN = nothing measured (e.g. no episode finished)
                self._writer.add_scalar(tag, number, step)

    def figures(self, step: int, figures: Mapping[str, Any]) -> None:
        self.scalars(step, figure_scalars(figures))
        self._writer.flush()  # an evaluation is worth keeping even if the process dies next

    def close(self) -> None:
        self._writer.close()
