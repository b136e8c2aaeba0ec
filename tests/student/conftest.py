"""A tiny student shared by the fast tests (one compile for the whole module set)."""

from __future__ import annotations

import jax
import pytest

from dicode.domains.tetris.schema import TetrisLevel, stack_levels, target_level
from dicode.domains.tetris.student.config import PPOConfig
from dicode.domains.tetris.student.slot_world import Trainer

TINY = PPOConfig(
    num_slots=2,
    envs_per_slot=4,
    pool_size=2,
    num_steps=8,
    update_epochs=1,
    num_minibatches=2,
    column_features=4,
    row_features=2,
    hidden=8,
)


def slots_of(*pools: TetrisLevel) -> TetrisLevel:
    """Stack per-slot pools (each with leading axis K) into the trainer's (S, K, ...) arrays."""
    return jax.tree_util.tree_map(lambda *xs: jax.numpy.stack(xs), *pools)


def pool_of(level: TetrisLevel, k: int = 2) -> TetrisLevel:
    return stack_levels([level] * k)


@pytest.fixture(scope="session")
def tiny_trainer() -> Trainer:
    return Trainer(TINY)


@pytest.fixture(scope="session")
def target_slots() -> TetrisLevel:
    return slots_of(pool_of(target_level()), pool_of(target_level()))
