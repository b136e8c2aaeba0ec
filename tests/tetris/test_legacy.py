"""Legacy 40-action encoding: what it reaches, what it cannot, and the engine flag."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris import engine, legacy
from dicode.domains.tetris.engine import EnvParams
from dicode.domains.tetris.placements import legal_mask
from dicode.domains.tetris.schema import PIECE_NAMES, target_level

WIDTH = 10


def test_legacy_reaches_157_of_162_and_misses_only_left_column_placements() -> None:
    missing = legacy.unreachable_placements(WIDTH)
    assert {(m["piece"], m["rotation"], m["column"]) for m in missing} == {
        ("I", 1, 0),  # vertical I: box columns 2 (state R) and 1 (state L)
        ("O", 0, 0),  # O: box columns 1–2
        ("T", 1, 0),  # right-pointing T/J/L: box column 1
        ("J", 1, 0),
        ("L", 1, 0),
    }
    empty = jnp.zeros((20, WIDTH), jnp.uint8)
    total = sum(int(legal_mask(empty, jnp.int32(p)).sum()) for p in range(7))
    reachable = sum(
        int(
            (
                np.asarray(legal_mask(empty, jnp.int32(p))) & legacy.reachable_placements(WIDTH)[p]
            ).sum()
        )
        for p in range(7)
    )
    assert (total, reachable) == (162, 157)


def test_every_legacy_action_lands_on_a_legal_placement_of_an_empty_board() -> None:
    empty = jnp.zeros((20, WIDTH), jnp.uint8)
    table = legacy.legacy_to_placement(WIDTH)
    for p in range(len(PIECE_NAMES)):
        assert np.asarray(legal_mask(empty, jnp.int32(p)))[table[p]].all()


def test_the_engine_flag_interprets_actions_as_column_times_four_plus_rotation() -> None:
    params = EnvParams(legacy_actions=True)
    level = target_level()
    seq = np.full(level.sequence.shape, -1, np.int32)
    seq[:2] = PIECE_NAMES.index("I")
    level = dataclasses.replace(level, sequence=jnp.asarray(seq))
    obs, state = engine.reset(jax.random.key(0), params.replace(level=level))
    assert obs.action_mask.shape == (4 * WIDTH,) and bool(obs.action_mask.all())
    # Column 0, rotation 1: the vertical I sits in box column 2, so it lands in board column 2.
    _, state, *_ = engine.step(jax.random.key(1), state, 0 * 4 + 1, params)
    filled = np.flatnonzero(np.asarray(state.board).any(axis=0))
    assert filled.tolist() == [2]
