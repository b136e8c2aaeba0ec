"""Judges backed by an OpenAI-compatible model: the text judge and the image (VLM) judge.

Both send the outcome of a placement (the board before and after) and ask for JSON under
structured output; pairwise comparisons show two outcomes as A and B. An answer that is not
usable (not JSON, out of range, wrong fields) is an ``invalid_answer`` error; a failed call keeps
the client's classification (``timeout``, ``connection``, …). Nothing here raises on the model.
"""

from __future__ import annotations

from dicode.domains.tetris.judges.base import (
    Choice,
    Outcome,
    PairVerdict,
    ScoreVerdict,
    check_suggestion,
)
from dicode.domains.tetris.judges.prompts import (
    PairAnswer,
    ScoreAnswer,
    View,
    pair_messages,
    score_messages,
)
from dicode.llm.client import LLMClient
from dicode.llm.structured import StructuredOutput as Structured
from dicode.llm.structured import parse_json_model, response_format

SCORE_SCHEMA = ScoreAnswer.model_json_schema()
PAIR_SCHEMA = PairAnswer.model_json_schema()
_CHOICES: dict[str, Choice] = {"A": "first", "B": "second", "equal": "tie"}


class LLMJudge:
    """A judge that asks a chat model. ``view`` picks text boards or PNG images."""

    def __init__(
        self,
        client: LLMClient,
        *,
        view: View = "text",
        structured: Structured = "json_schema",
        temperature: float = 0.0,
        max_tokens: int = 96,
        seed: int = 0,
    ) -> None:
        self.client = client
        self.view = view
        self.structured = structured
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.name: str = view

    async def score(self, outcome: Outcome) -> ScoreVerdict:
        result = await self.client.chat(
            score_messages(outcome, self.view),
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            response_format=response_format(self.structured, "placement_score", SCORE_SCHEMA),
            seed=self.seed,
        )
        verdict = ScoreVerdict(
            None,
            raw=result.text,
            latency_s=result.latency_s,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
        )
        if not result.ok:
            verdict.error_kind, verdict.error = result.error_kind, result.error
            return verdict
        answer, error = parse_json_model(result.text, ScoreAnswer, result.finish_reason, "score")
        if answer is None:
            verdict.error_kind, verdict.error = "invalid_answer", error
            return verdict
        verdict.score = answer.score
        verdict.suggestion, verdict.suggestion_note = check_suggestion(
            answer.suggested_rotation, answer.suggested_column, outcome.width
        )
        return verdict

    async def compare(self, first: Outcome, second: Outcome) -> PairVerdict:
        result = await self.client.chat(
            pair_messages(first, second, self.view),
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            response_format=response_format(self.structured, "placement_preference", PAIR_SCHEMA),
            seed=self.seed,
        )
        if not result.ok:
            return PairVerdict(None, result.error_kind, result.error, result.text, result.latency_s)
        answer, error = parse_json_model(
            result.text, PairAnswer, result.finish_reason, "preference"
        )
        if answer is None:
            return PairVerdict(None, "invalid_answer", error, result.text, result.latency_s)
        return PairVerdict(_CHOICES[answer.better], raw=result.text, latency_s=result.latency_s)
