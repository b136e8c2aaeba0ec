"""Shared, expensive Craftax fixtures: real worlds from Craftax's generator, made once."""

from __future__ import annotations

import pytest

from dicode.domains.craftax.schema import StateArrays
from dicode.domains.craftax.state_codec import generate_base_worlds, unstack_arrays


@pytest.fixture(scope="session")
def base_pool() -> StateArrays:
    """Two standard Craftax worlds (seed 0) as a pool dict."""
    return generate_base_worlds(seed=0, count=2)


@pytest.fixture(scope="session")
def worlds(base_pool: StateArrays) -> list[StateArrays]:
    return unstack_arrays(base_pool)
