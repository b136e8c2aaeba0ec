"""`dicode teach` end to end: fake OpenAI server, real sandbox, real SQLite archive."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from archive_db.repository import ArchiveRepository
from services.cli import app
from tests.support.fake_openai import FakeOpenAIServer, FakeReply

LEVEL_DIR = Path(__file__).resolve().parent / "levels"

DESCRIPTION = {
    "reasoning": "Vary the board while keeping the goal size.",
    "title": "Right well",
    "description": "Clear 4 lines within 30 pieces with a 4-deep well in column 9.",
}
HOSTILE = '"""Reads secrets."""\nimport os\n\ndef build(level, rng):\n    os.environ.clear()\n'


def test_teach_writes_children_prints_summary_and_records_attempts(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = (LEVEL_DIR / "right_well.py").read_text()
    server.enqueue(
        FakeReply.json(DESCRIPTION), FakeReply.text(f"<code>{good}</code>"),  # child 0: accepted
        FakeReply.json(DESCRIPTION), *[FakeReply.text(HOSTILE)] * 3,          # child 1: policy
        *[FakeReply.text('{"reasoning": "cut', finish_reason="length")] * 2,  # child 2: JSON
    )
    monkeypatch.setenv("DICODE_LLM_URL", server.base_url)
    monkeypatch.setenv("DICODE_LLM_MODEL", server.model)
    out, db = tmp_path / "children", f"sqlite:///{tmp_path / 'archive.sqlite'}"
    args = [
        "teach", "--domain", "tetris", "--teacher", "llm",
        "--parent", str(LEVEL_DIR / "garbage_goal.py"), "--n", "3", "--out", str(out),
        "--concurrency", "1", "--pool-size", "4", "--no-rollouts", "--db", db, "--json",
    ]
    result = CliRunner().invoke(app, args)

    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary == {
        "accepted": 1, "rejected": 2, "by_stage": {"description": 1, "static_policy": 1}
    }
    assert (out / "child_000.py").read_text() == good
    assert json.loads((out / "child_001.json").read_text())["failing_stage"] == "static_policy"
    assert not (out / "child_002.py").exists()
    assert json.loads((out / "summary.json").read_text()) == summary

    repository = ArchiveRepository.open(db)
    try:
        run = repository.runs.get("teach")
        attempts = repository.attempts.listing(run.id)
        assert [a.verdict for a in attempts] == ["accepted", "rejected", "rejected"]
        assert attempts[1].error and "os" in attempts[1].error
        assert attempts[0].level_id is not None and attempts[0].tokens_out
        assert repository.lineage.parents(attempts[0].level_id) == [attempts[0].parent_id]
    finally:
        repository.close()


def test_teach_without_an_endpoint_says_what_to_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DICODE_LLM_URL", raising=False)
    monkeypatch.delenv("DICODE_LLM_MODEL", raising=False)
    args = ["teach", "--teacher", "llm", "--parent", str(LEVEL_DIR / "survive.py"),
            "--out", str(tmp_path), "--pool-size", "2", "--no-rollouts"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "DICODE_LLM_URL" in result.output
