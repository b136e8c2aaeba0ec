"""PostgreSQL tests skip locally when the server is down, but fail loudly in CI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = "tests/archive/test_migrations.py::test_downgrade_to_empty_and_back"


def _run_postgres_test(ci: bool) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["DICODE_TEST_PG_URL"] = "postgresql+psycopg://postgres@127.0.0.1:1/test"  # nobody there
    env.pop("CI", None)
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-rsE",
            "-p",
            "no:cacheprovider",
            "-m",
            "postgres",
            TARGET,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_unreachable_postgres_skips_locally_and_fails_in_ci() -> None:
    local = _run_postgres_test(ci=False)
    assert local.returncode == 0, local.stdout
    assert "SKIPPED" in local.stdout and "unreachable" in local.stdout
    in_ci = _run_postgres_test(ci=True)
    assert in_ci.returncode != 0, in_ci.stdout
    assert "unreachable" in in_ci.stdout and "CI=true" in in_ci.stdout
