"""The validation pipeline on real levels: seeds accepted, verdicts complete, hashes stable."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import numpy as np
import pytest

from dicode import domains
from dicode.domains.tetris.builder import make_builder
from dicode.domains.tetris.rollouts import TetrisRollouts
from dicode.domains.tetris.seeds import seed_level_sources
from dicode.levels.pipeline import Validator, validate_level
from dicode.levels.verdict import STAGES

SEEDS = seed_level_sources()
GARBAGE = '"""Garbage."""\ndef build(level, rng):\n    level.garbage(3)\n    level.goal(lines=1)\n'


@pytest.fixture(scope="module")
def validator() -> Iterator[Validator]:
    with Validator(domains.get("tetris"), pool_size=32, warm=2) as validator:
        yield validator


def test_there_are_enough_seed_levels_and_one_is_the_target_game() -> None:
    assert len(SEEDS) >= 8
    assert "11_target_game" in SEEDS


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seed_level_is_accepted(validator: Validator, name: str) -> None:
    verdict = validator.validate(SEEDS[name])
    assert verdict.accepted, verdict.error
    assert verdict.stage == "accepted" and verdict.error is None
    assert set(STAGES) <= set(verdict.timings)
    assert verdict.bundle is not None and verdict.bundle.pool_size == 32
    assert 0.0 <= verdict.difficulty["random_success"] <= 1.0
    assert 0.0 <= verdict.difficulty["heuristic_success"] <= 1.0
    json.loads(verdict.to_json())


def test_target_game_has_no_goal_and_the_heuristic_outplays_random(validator: Validator) -> None:
    verdict = validator.validate(SEEDS["11_target_game"])
    assert verdict.bundle is not None
    assert verdict.bundle.goal == {"lines": 0, "pieces": 0}
    assert not verdict.bundle.pool["board"].any()
    assert verdict.difficulty["heuristic_lines"] > 10 * max(verdict.difficulty["random_lines"], 1)


def test_an_easy_level_is_easier_for_the_heuristic_than_a_hard_one(validator: Validator) -> None:
    easy = validator.validate(SEEDS["01_tetris_well"]).difficulty
    assert easy["heuristic_success"] == 1.0


def test_same_source_and_seed_give_the_same_bundle(validator: Validator) -> None:
    first = validator.validate(GARBAGE, seed=5)
    again = validator.validate(GARBAGE, seed=5)
    other_seed = validator.validate(GARBAGE, seed=6)
    reworded = validator.validate(
        GARBAGE + "# a comment changes the source, not the level\n", seed=5
    )
    assert first.bundle is not None and again.bundle is not None
    assert other_seed.bundle is not None and reworded.bundle is not None
    assert first.bundle.content_hash == again.bundle.content_hash
    assert first.bundle.content_hash != other_seed.bundle.content_hash
    assert first.bundle.content_hash == reworded.bundle.content_hash
    assert first.bundle.source_hash != reworded.bundle.source_hash


@pytest.mark.parametrize("bad", [None, b"bytes", "\0"])
def test_non_text_or_binary_source_is_rejected_at_syntax(validator: Validator, bad: object) -> None:
    verdict = validator.validate(bad)  # type: ignore[arg-type]
    assert not verdict.accepted and verdict.stage == "syntax"


def test_rollouts_report_a_blocked_spawn_from_the_real_engine() -> None:
    # 32 instances: the same shape as the validator above, so the compiled rollouts are reused.
    instances = [make_builder(np.random.default_rng(i)).to_arrays() for i in range(32)]
    pool = {key: np.stack([inst[key] for inst in instances]) for key in instances[0]}
    pool["board"][1, 19, 3:7] = 1
    report = TetrisRollouts(steps=300).evaluate(pool, seed=0)
    assert report.problem is not None and "cannot spawn in 1 instances" in report.problem


def test_validate_level_one_off_entry_point(validator: Validator) -> None:
    # `validator` is requested only so the shared rollout compile has happened already.
    tetris = domains.get("tetris")
    accepted = validate_level(SEEDS["02_first_line"], tetris, pool_size=32, seed=3)
    rejected = validate_level('"""x"""\nimport os\ndef build(level, rng):\n    pass\n', tetris)
    assert accepted.accepted and accepted.bundle is not None
    assert accepted.bundle.provenance()["seed"] == 3
    assert not rejected.accepted and rejected.stage == "static_policy"


def test_a_non_ascii_identifier_is_an_ordinary_name(validator: Validator) -> None:
    """The parser normalises such names through unicodedata, loaded before the walls go up."""
    source = '"""Garbage, named in French."""\ndef build(level, rng):\n    hauteur_été = 3\n'
    verdict = validator.validate(source + "    level.garbage(hauteur_été, holes=1)\n")
    assert verdict.accepted, verdict.error


@pytest.mark.parametrize(
    ("body", "stage", "message"),
    [
        ("x = " + "-" * 50_000 + "1\n", "syntax", "nests too deeply to parse"),
        ("x = " + " + ".join(["'a'"] * 300) + "\n", "accepted", ""),
        (
            "x = " + " + ".join(["'a'"] * 2_000) + "\n",
            "sandbox_build",
            r"RecursionError \(recursion too deep",
        ),
        (
            "import numpy as np\n\n\ndef grow(level, rng):\n    np.ones((1 << 40,), np.uint8)\n",
            "sandbox_build",
            r"MemoryError at line \d+ \(out of memory",
        ),
    ],
)
def test_resource_exhaustion_gets_a_named_stage(
    validator: Validator, body: str, stage: str, message: str
) -> None:
    source = '"""Exhausting."""\n' + body.replace("def grow", "def build")
    if "def build" not in source:
        source += "\n\ndef build(level, rng):\n    level.garbage(2, holes=1)\n"
    verdict = validator.validate(source)
    assert verdict.stage == stage, verdict.error
    assert re.search(message, verdict.error or ""), verdict.error
