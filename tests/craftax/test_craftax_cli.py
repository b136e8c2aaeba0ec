"""`dicode train --domain craftax` and `dicode eval --domain craftax` end to end (tiny student;
``num_iterations`` given, so the annealed schedule keeps it)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.craftax.conftest import EVAL_ENVS, TINY
from tests.support.student_cli import check_train_then_eval

# Craftax compiles its update and evaluator to train, its evaluator again to evaluate:
# minutes on a busy CPU.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def test_train_then_eval(tmp_path: Path) -> None:
    check_train_then_eval("craftax", replace(TINY, num_iterations=1), tmp_path, EVAL_ENVS, 30)
