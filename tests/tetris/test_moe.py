"""The rule-based mixture-of-experts ranker: its gate, legality, and play far above random."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.domains.tetris import legacy, moe
from dicode.domains.tetris.engine import EnvParams
from dicode.domains.tetris.evaluate import play
from dicode.domains.tetris.placements import afterstates
from dicode.domains.tetris.policies import make_policy
from tests.tetris.strategies import HEIGHT, WIDTH, boards

_gate = jax.jit(moe.gate)
_policy = jax.jit(make_policy("moe"))
_legacy_policy = jax.jit(make_policy("moe", legacy_actions=True))
_afterstates = jax.jit(afterstates)
_scores = jax.jit(moe.scores)
_KEY = jax.random.key(0)

EXPERT = {name: k for k, name in enumerate(moe.EXPERTS)}
HOLES, STACK, LINES, SURFACE = (EXPERT[n] for n in ("holes", "stack", "lines", "surface"))


def _tall_holey_board() -> np.ndarray:
    """15 of 20 rows filled, a hole in column 4 of every third row, column 9 open on top."""
    board = np.zeros((HEIGHT, WIDTH), np.uint8)
    board[:15] = 1
    board[0:14:3, 4] = 0
    board[12:15, 9] = 0
    return board


@settings(max_examples=40, deadline=None)
@given(boards())
def test_gate_is_a_convex_combination(board: np.ndarray) -> None:
    weights = np.asarray(_gate(jnp.asarray(board)))
    assert weights.shape == (len(moe.EXPERTS),)
    assert np.all(weights > 0)
    np.testing.assert_allclose(weights.sum(), 1.0, rtol=1e-5)


def test_gate_shifts_weight_to_survival_on_a_tall_holey_board() -> None:
    low_clean = np.asarray(_gate(jnp.zeros((HEIGHT, WIDTH), jnp.uint8)))
    tall_holey = np.asarray(_gate(jnp.asarray(_tall_holey_board())))
    # Low clean board: lines and surface lead; tall holey board: holes and stack lead.
    assert low_clean[LINES] > low_clean[HOLES] and low_clean[SURFACE] > low_clean[STACK]
    assert tall_holey[HOLES] > tall_holey[SURFACE] > tall_holey[LINES]
    assert tall_holey[HOLES] > low_clean[HOLES] + 0.3
    assert tall_holey[STACK] > low_clean[STACK]
    assert tall_holey[LINES] < low_clean[LINES] and tall_holey[SURFACE] < low_clean[SURFACE]
    # The documented figures, to two decimals.
    np.testing.assert_allclose(low_clean, [0.13, 0.13, 0.37, 0.37], atol=0.01)
    np.testing.assert_allclose(tall_holey, [0.53, 0.25, 0.07, 0.15], atol=0.01)


@settings(max_examples=20, deadline=None)
@given(boards(), st.integers(0, 6))
def test_policy_takes_the_best_legal_candidate(board: np.ndarray, piece: int) -> None:
    candidates = _afterstates(jnp.asarray(board), jnp.int32(piece))
    legal = np.asarray(candidates.legal)
    action = int(_policy(_KEY, jnp.asarray(board), jnp.int32(piece)))
    if not legal.any():
        return  # lock out: every action is illegal and the game ends whatever is chosen
    assert legal[action]
    value = np.asarray(_scores(candidates, jnp.asarray(board)))
    assert np.all(np.isneginf(value[~legal]))
    assert value[action] >= value[legal].max() - 1e-4 * max(1.0, abs(value[legal].max()))


def test_an_i_piece_goes_down_a_clean_well_for_four_lines() -> None:
    board = np.zeros((HEIGHT, WIDTH), np.uint8)
    board[:4, :9] = 1  # four rows full except column 9
    action = int(_policy(_KEY, jnp.asarray(board), jnp.int32(0)))  # piece 0 = I
    assert int(np.asarray(_afterstates(jnp.asarray(board), jnp.int32(0)).lines)[action]) == 4


def test_moe_clears_far_more_lines_than_random() -> None:
    params = EnvParams()
    cap = 150
    random_final = play(make_policy("random"), params, 4, cap, seed=0)
    final = play(make_policy("moe"), params, 4, cap, seed=0)
    assert int(np.asarray(random_final.lines).max()) <= 2
    # 150 pieces hold at most 60 lines; the mixture survives them and clears most.
    assert np.all(np.asarray(final.pieces) == cap)
    assert np.all(np.asarray(final.lines) >= 45)


@settings(max_examples=20, deadline=None)
@given(boards(), st.integers(0, 6))
def test_legacy_actions_are_valid_and_land_on_a_legal_placement(
    board: np.ndarray, piece: int
) -> None:
    action = int(_legacy_policy(_KEY, jnp.asarray(board), jnp.int32(piece)))
    assert 0 <= action < 4 * WIDTH
    legal = np.asarray(_afterstates(jnp.asarray(board), jnp.int32(piece)).legal)
    reachable = legal & legacy.reachable_placements(WIDTH)[piece]
    if reachable.any():
        assert legal[int(legacy.to_placement(jnp.int32(piece), jnp.int32(action), WIDTH))]
