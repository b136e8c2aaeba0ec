"""Code and description extraction from realistic model answers."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from dicode.teachers.extract import (
    description_response_format,
    extract_code,
    parse_description,
)

MODULE = 'def build(b):\n    """Two garbage rows."""\n    b.garbage_rows(2)\n    return b\n'


def test_code_tag_wins_over_surrounding_prose() -> None:
    answer = f"Here is the level.\n<code>\n{MODULE}</code>\nIt is harder because..."
    found = extract_code(answer)
    assert (found.code, found.method) == (MODULE, "tag")


def test_fenced_code_inside_a_tag_is_unwrapped() -> None:
    found = extract_code(f"<code>\n```python\n{MODULE}```\n</code>")
    assert found.code == MODULE and found.method == "tag"


def test_unclosed_tag_takes_the_rest_of_the_answer() -> None:
    assert extract_code(f"<code>\n{MODULE}").code == MODULE


def test_fenced_block_with_prose_longest_python_block_wins() -> None:
    answer = f"Sure!\n```python\n{MODULE}```\nUse it like:\n```python\nbuild(b)\n```\n"
    found = extract_code(answer)
    assert (found.code, found.method) == (MODULE, "fence")


def test_non_python_fences_are_ignored() -> None:
    found = extract_code("```json\n{\"a\": 1}\n```\nno code here")
    assert not found.ok and "no code found" in (found.error or "")


def test_bare_code_is_accepted_without_being_parsed() -> None:
    broken = "import numpy as np\ndef build(b)\n    return b\n"  # syntax error: sandbox's job
    found = extract_code(broken)
    assert (found.code, found.method) == (broken, "bare")


def test_prose_and_empty_answers_are_explained_failures() -> None:
    prose = extract_code("I cannot write this level, sorry.")
    assert not prose.ok and "I cannot write this level" in (prose.error or "")
    assert extract_code("").error == "empty answer: no code to extract"
    assert extract_code("<code>  </code>").error == "the <code> tag is empty"


@given(st.text(max_size=300))
def test_extraction_never_raises_and_always_explains(answer: str) -> None:
    found = extract_code(answer)
    assert found.ok != (found.error is not None)


GOOD = {
    "reasoning": "The student clears 90% of these; add a deeper well.",
    "title": "Deep well",
    "description": "Objective: clear 4 lines within 30 pieces. Board: 6 garbage rows, well at 9.",
}


def test_valid_description_json() -> None:
    parsed = parse_description(json.dumps(GOOD))
    assert parsed.ok and parsed.value is not None and parsed.value.title == "Deep well"


def test_fenced_json_is_tolerated() -> None:
    assert parse_description(f"```json\n{json.dumps(GOOD)}\n```").ok


def test_truncated_json_names_the_cut() -> None:
    text = json.dumps(GOOD)[:50]
    parsed = parse_description(text, finish_reason="length")
    assert not parsed.ok
    assert "invalid JSON" in (parsed.error or "") and "cut off" in (parsed.error or "")


def test_schema_violations_name_the_field() -> None:
    parsed = parse_description(json.dumps({"reasoning": "x", "title": "t"}))
    assert "description: Field required" in (parsed.error or "")
    assert "expected a JSON object" in (parse_description("[1, 2]").error or "")
    assert "empty answer" in (parse_description("  ").error or "")


def test_response_format_is_vllm_json_schema_form() -> None:
    fmt = description_response_format()
    assert fmt is not None and fmt["type"] == "json_schema"
    schema = fmt["json_schema"]["schema"]
    assert set(schema["required"]) == {"reasoning", "title", "description"}
    assert schema["additionalProperties"] is False


def test_llama_cpp_dialect_and_no_constraint() -> None:
    fmt = description_response_format("json_object")
    assert fmt is not None and fmt["type"] == "json_object"
    assert fmt["schema"]["required"] == ["reasoning", "title", "description"]
    assert description_response_format("none") is None


def test_empty_tag_echoed_inside_a_fence_does_not_hide_the_fenced_code() -> None:
    # A real SmolLM2 answer: the prompt's "<code></code>" wording echoed in a docstring.
    answer = (
        '```python\ndef build(level, rng):\n    """Return the module inside <code></code> '
        'tags."""\n    level.garbage(3)\n```'
    )
    found = extract_code(answer)
    assert found.method == "fence" and "level.garbage(3)" in (found.code or "")
