"""Every legal placement of a piece with its afterstate and BCTS value, as NumPy for judges.

Judges, the benchmark and the LLM player work one decision at a time in Python (model calls are
I/O), so this module runs the engine's batched afterstates once per (board, piece) through one
jitted function and hands back plain arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.heuristics import WEIGHTS, board_features, scores
from dicode.domains.tetris.placements import afterstates
from dicode.domains.tetris.policies import Policy, make_policy

BCTS = jnp.asarray(WEIGHTS["bcts"])


@jax.jit
def _table(board: jnp.ndarray, piece: jnp.ndarray) -> tuple[jnp.ndarray, ...]:
    after = afterstates(board, piece)
    return after.boards, after.lines, after.legal, scores(after, BCTS)


_UNUSED_KEY = jax.random.key(0)  # the policies played here are deterministic; keys are ignored


@cache
def _jitted_policy(name: str) -> Policy:
    return jax.jit(make_policy(name))


def policy_action(name: str, board: np.ndarray, piece: int) -> int:
    """The action of a deterministic ``heuristics`` policy, with its tie-break (exactly what
    ``--policy <name>`` plays); one compiled policy per name."""
    return int(_jitted_policy(name)(_UNUSED_KEY, jnp.asarray(board), jnp.int32(piece)))


def bcts_action(board: np.ndarray, piece: int) -> int:
    """The BCTS planner's action, with its tie-break (exactly what ``--policy bcts`` plays)."""
    return policy_action("bcts", board, piece)


@dataclass(frozen=True)
class Candidates:
    """Legal placements of ``piece`` on ``board`` (arrays aligned on the first axis)."""

    board: np.ndarray  # (H, W) the board before
    piece: int
    actions: np.ndarray  # (n,) int placement actions, ascending
    boards: np.ndarray  # (n, H, W) afterstates (line clears applied)
    lines: np.ndarray  # (n,) rows cleared
    values: np.ndarray  # (n,) BCTS value (higher is better)

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def index_of(self, action: int) -> int:
        """Position of ``action`` among the legal ones (ValueError if it is not legal)."""
        hits = np.flatnonzero(self.actions == action)
        if hits.size == 0:
            raise ValueError(f"action {action} is not a legal placement here")
        return int(hits[0])


def enumerate_candidates(board: np.ndarray, piece: int) -> Candidates:
    """All legal placements with afterstates and BCTS values (cached per board and piece)."""
    board = np.ascontiguousarray(board, np.uint8)
    return _cached(board.tobytes(), board.shape, int(piece))


@lru_cache(maxsize=4096)
def _cached(raw: bytes, shape: tuple[int, int], piece: int) -> Candidates:
    board = np.frombuffer(raw, np.uint8).reshape(shape)
    boards, lines, legal, values = (np.asarray(x) for x in _table(board, jnp.int32(piece)))
    actions = np.flatnonzero(legal)
    return Candidates(
        board=board,
        piece=piece,
        actions=actions,
        boards=boards[actions],
        lines=lines[actions].astype(int),
        values=values[actions].astype(np.float64),
    )


@lru_cache(maxsize=8)
def empty_board_value(height: int, width: int) -> float:
    """BCTS value of the board features of an empty board (the reference for normalising)."""
    features = board_features(jnp.zeros((height, width), jnp.uint8))
    return float(features @ BCTS[3:])
