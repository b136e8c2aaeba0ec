"""`dicode train --domain maze` and `dicode eval --domain maze` end to end (tiny student)."""

from __future__ import annotations

from pathlib import Path

from tests.maze.conftest import TINY
from tests.support.student_cli import check_train_then_eval


def test_train_then_eval(tmp_path: Path) -> None:
    check_train_then_eval("maze", TINY, tmp_path, games=1, max_steps=30)
