"""The LLM teacher against a real vLLM server: structured output, the two requests, repairs, and
every attempt in the archive. Mirrors tests/teachers (the wire-protocol fake) with the real
server; a 135M model writes few valid levels, so the assertions are on the protocol and the
record, not on acceptance."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from archive_db.repository import ArchiveRepository
from dicode.llm.client import LLMClient, LLMConfig
from dicode.teachers.extract import description_response_format, parse_description
from services.cli import app
from tests.support.vllm_server import Endpoint

pytestmark = pytest.mark.vllm
PARENT = Path(__file__).resolve().parents[1] / "teachers" / "levels" / "garbage_goal.py"
# Sandbox stages: a rejection there goes back to the model as a repair turn.
SANDBOX_STAGES = {"syntax", "static_policy", "sandbox_build", "schema", "rollouts", "code"}


def test_json_schema_is_honoured(vllm_server: Endpoint) -> None:
    """vLLM's structured-output backend constrains the answer to the description schema, so
    every answer parses (llama.cpp's server needed the json_object dialect instead)."""

    async def ask(seed: int) -> tuple[str | None, str | None]:
        client = LLMClient(LLMConfig(base_url=vllm_server.base_url,
                                     model=vllm_server.served_name, timeout_s=300))  # fmt: skip
        try:
            chat = await client.chat(
                [{"role": "user", "content": "Describe a harder Tetris level as JSON."}],
                max_tokens=512, response_format=description_response_format(), seed=seed,
            )  # fmt: skip
        finally:
            await client.aclose()
        return chat.text, chat.finish_reason

    for seed in range(3):
        text, finish = asyncio.run(ask(seed))
        assert text is not None, "no answer"
        if finish == "length":  # cut by max_tokens: valid JSON so far, never a wrong schema
            continue
        parsed = parse_description(text, finish)
        assert parsed.value is not None, (parsed.error, text)


# Three attempts of up to four calls of ≤ 640 tokens: ≈ 6 min on a quiet 2-core machine, over
# 10 min once other work shares the cores (the default 600 s limit failed it then).
@pytest.mark.timeout(1500)
def test_teach_records_every_attempt_with_verdict_and_stage(
    vllm_server: Endpoint, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICODE_LLM_URL", vllm_server.base_url)
    monkeypatch.setenv("DICODE_LLM_MODEL", vllm_server.served_name)
    out, db = tmp_path / "children", f"sqlite:///{tmp_path / 'archive.sqlite'}"
    args = [
        "teach", "--domain", "tetris", "--teacher", "llm", "--parent", str(PARENT),
        "--n", "3", "--out", str(out), "--concurrency", "3", "--pool-size", "4",
        "--no-rollouts", "--db", db, "--json",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)

    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["accepted"] + summary["rejected"] == 3
    print(f"\nteach against vLLM: {summary}")

    repository = ArchiveRepository.open(db)
    try:
        attempts = repository.attempts.listing(repository.runs.get("teach").id)
    finally:
        repository.close()
    assert len(attempts) == 3
    calls = [r for a in attempts for r in a.responses]
    # A call may outlast the client's 120 s deadline when other work shares the two cores: it is
    # then recorded as a timeout with its stage, like any failed call. A description the 135M
    # model cuts off at the token cap is an answer the teacher refused (invalid_description) and
    # asks again for. Any other error is a defect.
    kinds = [(r["stage"], r.get("error_kind"), r.get("error")) for r in calls]
    allowed = (None, "empty_answer", "timeout", "invalid_description")
    assert all(kind in allowed for _, kind, _ in kinds), kinds
    for attempt in attempts:
        refused = [r for r in attempt.responses if r.get("error_kind") == "invalid_description"]
        assert all(r["stage"].startswith("description") and r["error"] for r in refused), kinds
    assert any(r.get("response") for r in calls), kinds
    for attempt in attempts:
        stages = [r["stage"] for r in attempt.responses]
        assert attempt.verdict in ("accepted", "rejected")
        assert attempt.stage_reached
        assert attempt.prompts and len(attempt.prompts) == len(attempt.responses)
        # First request: the description, under the JSON schema.
        assert stages[0] == "description", stages
        if attempt.failing_stage == "description":
            continue
        described = [r for r in attempt.responses if r["stage"].startswith("description")]
        assert parse_description(described[-1]["response"], described[-1]["finish_reason"]).value
        # Then the code, and one repair per sandbox rejection, at most two (repair_rounds).
        code_stages = stages[len(described):]
        assert code_stages[0] == "code"
        assert code_stages[1:] == [f"repair-{i}" for i in range(1, len(code_stages))]
        assert len(code_stages) <= 3
        if attempt.verdict == "rejected":
            assert attempt.failing_stage and attempt.error
            # A failed call (a timeout under load) ends the attempt early; otherwise every
            # repair round is used before the teacher gives up on a sandbox rejection.
            answered = attempt.responses[-1].get("error_kind") is None
            if attempt.failing_stage in SANDBOX_STAGES and answered:
                assert len(code_stages) == 3, "every repair round is used before giving up"
        else:
            assert attempt.level_id is not None and attempt.code
        assert attempt.tokens_out and attempt.tokens_out > 0
    # The same attempts as the CLI's records (stored in the order they finished).
    children = [json.loads(p.read_text()) for p in sorted(out.glob("child_*.json"))]
    assert sorted(str(c["failing_stage"]) for c in children) == sorted(
        str(a.failing_stage) for a in attempts
    )
