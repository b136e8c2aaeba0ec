"""`dicode run` refuses bad requests before starting anything."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from services.cli import app


def test_unknown_profile_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "--profile", "huge", "--runs-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "unknown profile 'huge'" in result.output
    assert not any(tmp_path.iterdir()), "nothing may be created for a refused run"


def test_resume_needs_an_existing_run(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "--resume", "--runs-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "no 'tetris-quick' run" in result.output
    named = CliRunner().invoke(
        app, ["run", "--resume", "--name", "ghost", "--runs-dir", str(tmp_path)]
    )
    assert named.exit_code == 2 and "nothing to resume" in named.output
