"""Shared, expensive Craftax fixtures: real worlds from Craftax's generator and one tiny
student loop (one compiled update and evaluation for every test that trains), made once."""

from __future__ import annotations

import pytest

from dicode.domains.craftax.schema import StateArrays
from dicode.domains.craftax.state_codec import generate_base_worlds, unstack_arrays
from dicode.domains.craftax.student.config import CraftaxPPOConfig
from dicode.domains.craftax.student.trainer import CraftaxSlotTrainer
from dicode.student.loop import StudentLoop

TINY = CraftaxPPOConfig(
    num_slots=2,
    envs_per_slot=4,
    pool_size=2,
    target_refresh=1,
    num_steps=8,
    num_minibatches=2,
    update_epochs=1,
    layer_size=32,
)
EVAL_ENVS, EVAL_STEPS = 4, 40


@pytest.fixture(scope="session")
def base_pool() -> StateArrays:
    """Two standard Craftax worlds (seed 0) as a pool dict."""
    return generate_base_worlds(seed=0, count=2)


@pytest.fixture(scope="session")
def worlds(base_pool: StateArrays) -> list[StateArrays]:
    return unstack_arrays(base_pool)


@pytest.fixture(scope="session")
def loop() -> StudentLoop:
    loop = StudentLoop(CraftaxSlotTrainer(TINY, EVAL_ENVS, EVAL_STEPS))
    loop.run_session(1)  # compiles the update once for every test that uses the loop
    return loop
