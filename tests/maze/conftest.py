"""Shared maze fixtures: the sandbox requirement, one warm validator and one tiny compiled
student for every test that needs them (each is compiled once per test session)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dicode import domains
from dicode.domains.maze.seed_levels import SEED_LEVEL_NAMES, seed_level_source
from dicode.domains.maze.student.config import MazePPOConfig
from dicode.levels.pipeline import Validator
from tests.levels.helpers import require_bubblewrap

TINY = MazePPOConfig(
    num_slots=2,
    envs_per_slot=8,
    pool_size=8,
    target_refresh=2,
    num_steps=16,
    num_minibatches=2,
    update_epochs=1,
    embed_size=16,
    hidden_size=16,
    learning_rate=3e-3,  # a tiny batch: a larger step size shows learning within seconds
)
EVAL_EPISODES = 2
POOL = 8  # instances per level in the sandbox tests


@pytest.fixture(scope="session")
def validator() -> Iterator[Validator]:
    require_bubblewrap()
    with Validator(domains.get("maze"), pool_size=POOL, warm=1) as validator:
        yield validator


@pytest.fixture(scope="session")
def seed_sources() -> dict[str, str]:
    return {name: seed_level_source(name) for name in SEED_LEVEL_NAMES}
