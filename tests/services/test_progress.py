"""The progress bar of long work shows on a terminal and nowhere else (a pipe, a CI log)."""

from __future__ import annotations

import os
import select
from typing import IO

import pytest
from rich.console import Console

from services.progress import step_progress


def _show_half_done(file: IO[str]) -> None:
    with step_progress(Console(file=file, width=120)) as progress:
        task = progress.add_task("tetris", total=200_000)
        progress.update(task, completed=100_000)
    file.flush()


def _drain(fd: int) -> str:
    chunks = []
    while select.select([fd], [], [], 0.2)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


def test_a_terminal_sees_the_steps_done_of_the_budget() -> None:
    reader, writer = os.openpty()
    with os.fdopen(writer, "w") as terminal:
        _show_half_done(terminal)
        shown = _drain(reader)
    os.close(reader)
    assert "tetris" in shown and "100,000/200,000 env steps" in shown and "steps/s" in shown


@pytest.mark.parametrize("force_color", [None, "1"])
def test_a_pipe_sees_nothing_even_with_colours_forced(
    force_color: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if force_color is None:
        monkeypatch.delenv("FORCE_COLOR", raising=False)
    else:  # some CI services set it; rich then takes the log for a terminal
        monkeypatch.setenv("FORCE_COLOR", force_color)
    reader, writer = os.pipe()
    with os.fdopen(writer, "w") as pipe:
        _show_half_done(pipe)
    with os.fdopen(reader) as log:
        assert log.read() == ""
