"""DICODE_LLM_MAX_TOKENS caps the LLM teacher's answer budgets (for slow CPU servers)."""

from __future__ import annotations

import pytest

from dicode.teachers.llm_teacher import ENV_MAX_TOKENS, LLMTeacherSettings, with_max_tokens_cap


def test_unset_leaves_the_budgets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_MAX_TOKENS, raising=False)
    assert with_max_tokens_cap(LLMTeacherSettings()) == LLMTeacherSettings()


def test_cap_lowers_both_stages_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_MAX_TOKENS, "512")
    capped = with_max_tokens_cap(LLMTeacherSettings(description_max_tokens=256))
    assert (capped.description_max_tokens, capped.code_max_tokens) == (256, 512)
    monkeypatch.setenv(ENV_MAX_TOKENS, "0")
    with pytest.raises(ValueError, match=ENV_MAX_TOKENS):
        with_max_tokens_cap(LLMTeacherSettings())
