"""The student's observation keeps every legal placement, in MAX_LEGAL candidate slots."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.domains.tetris.placements import afterstates
from dicode.domains.tetris.schema import target_level
from dicode.domains.tetris.student import env


def test_max_legal_is_the_most_placements_of_any_piece() -> None:
    empty = jnp.zeros((20, 10), jnp.uint8)
    counts = [int(afterstates(empty, jnp.int32(p)).legal.sum()) for p in range(7)]
    assert max(counts) == env.MAX_LEGAL


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), pieces=st.integers(0, 40))
def test_observation_holds_exactly_the_legal_placements(seed: int, pieces: int) -> None:
    observe, step, full_afterstates = jax.jit(env.observe), jax.jit(env.step), jax.jit(afterstates)
    key = jax.random.key(seed)
    state = env.reset(key, target_level())
    rng = np.random.default_rng(seed)
    for t in range(pieces):
        if bool(state.done):
            break
        obs = observe(state)
        full = full_afterstates(state.board, state.piece)
        legal_actions = set(np.flatnonzero(np.asarray(full.legal)).tolist())
        n = int(obs.legal.sum())
        # Legal candidates first, each legal placement exactly once, boards and lines kept.
        assert bool(obs.legal[:n].all()) and not bool(obs.legal[n:].any())
        assert set(np.asarray(obs.placement[:n]).tolist()) == legal_actions
        np.testing.assert_array_equal(obs.afterstates[:n], full.boards[obs.placement[:n]])
        np.testing.assert_array_equal(obs.lines[:n], full.lines[obs.placement[:n]])
        action = obs.placement[rng.integers(n)]
        state = step(jax.random.fold_in(key, t), state, action)[0]
