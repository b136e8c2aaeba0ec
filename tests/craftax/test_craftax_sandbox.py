"""Craftax levels through the real validation pipeline: base worlds made here by Craftax's
generator, edited in sandboxed workers, checked on return; hostile levels are rejected."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from dicode import domains
from dicode.domains.craftax import level_slots
from dicode.domains.craftax.level_checks import pool_to_bundle
from dicode.domains.craftax.seed_levels import SEED_LEVEL_NAMES, seed_level_source
from dicode.levels.pipeline import Validator
from dicode.levels.sandbox import SandboxLimits
from tests.levels.helpers import stray_workers

HOSTILE_DIR = Path(__file__).resolve().parents[1] / "hostile_levels" / "craftax"
HOSTILE_FILES = sorted(HOSTILE_DIR.glob("*.py"))
POOL = 4


def _header(source: str, key: str) -> str:
    match = re.search(rf"^# {key}: (.*)$", source, re.MULTILINE)
    assert match, f"hostile level lacks a '# {key}:' line"
    return match.group(1).strip()


@pytest.fixture(scope="module")
def validator() -> Iterator[Validator]:
    limits = SandboxLimits(wall_seconds=10.0, cpu_seconds=3, memory_bytes=1024 * 2**20,
                           answer_bytes=64 * 2**20)  # fmt: skip
    craftax = domains.get("craftax")
    with Validator(craftax, pool_size=POOL, warm=2, limits=limits, rollouts=False) as v:
        yield v


@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
def test_seed_levels_are_accepted_and_engine_ready(validator: Validator, name: str) -> None:
    verdict = validator.validate(seed_level_source(name), seed=3)
    assert verdict.accepted, verdict.error
    bundle = verdict.bundle
    assert bundle is not None and bundle.domain == "craftax" and bundle.pool_size == POOL
    assert bundle.goal and set(bundle.rules) >= {"mob_damage", "spawn_melee"}
    assert bundle.description.strip()
    craftax_bundle = pool_to_bundle(bundle.pool)
    assert sorted(craftax_bundle.goal_names) == sorted(bundle.goal)
    level_slots.make_slots([craftax_bundle], POOL)  # the engine accepts what the sandbox made
    # The base worlds came from the parent: the same seed gives the same worlds.
    again = validator.validate(seed_level_source(name), seed=3).bundle
    assert again is not None and again.content_hash == bundle.content_hash


def test_base_worlds_differ_per_seed(validator: Validator) -> None:
    first = validator.validate(seed_level_source("target_game"), seed=1).bundle
    second = validator.validate(seed_level_source("target_game"), seed=2).bundle
    assert first is not None and second is not None
    assert not np.array_equal(first.pool["map"], second.pool["map"])


@pytest.mark.parametrize("path", HOSTILE_FILES, ids=[p.stem for p in HOSTILE_FILES])
def test_hostile_craftax_level_is_rejected(validator: Validator, path: Path) -> None:
    source = path.read_text()
    verdict = validator.validate(source)
    assert not verdict.accepted and verdict.bundle is None
    assert verdict.stage == _header(source, "expect-stage"), verdict.error
    assert verdict.error and re.search(_header(source, "expect-error"), verdict.error), (
        verdict.error
    )
    assert stray_workers(validator.sandbox) == []


def test_there_are_enough_hostile_craftax_levels() -> None:
    assert len(HOSTILE_FILES) >= 10


@pytest.mark.slow
def test_rollouts_play_accepted_levels_in_the_engine() -> None:
    with Validator(domains.get("craftax"), pool_size=POOL, warm=1, rollout_steps=50) as validator:
        verdict = validator.validate(seed_level_source("collect_basics"), seed=0)
    assert verdict.accepted, verdict.error
    assert set(verdict.difficulty) == {"random_success", "random_return", "random_length"}
    assert 0.0 <= verdict.difficulty["random_success"] <= 1.0
    assert 1.0 <= verdict.difficulty["random_length"] <= 50.0
