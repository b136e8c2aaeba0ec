"""`dicode train --domain tetris` and `dicode eval --domain tetris` end to end (tiny student)."""

from __future__ import annotations

from pathlib import Path

from tests.student.conftest import TINY
from tests.support.student_cli import check_train_then_eval


def test_train_then_eval(tmp_path: Path) -> None:
    check_train_then_eval("tetris", TINY, tmp_path, games=2, max_steps=30)
