"""The student's network: one shared scorer over afterstate boards, plus a value head.

Raw boards in. The architecture encodes Tetris's geometry:
a small MLP shared by every column (what a column looks like: its height, its holes) and
one shared by every row (how full it is). Their outputs are concatenated and read by an MLP,
which can compare neighbouring columns (steps, wells). The same trunk scores
each candidate afterstate (policy logit) and the current board (state value). The value head
also reads the level's context (``env.level_context``: the goal left, the piece mix; zeros on
the target game), so one value function can tell a level's states from the target game's,
and, unless ``board_features`` is off, the classic afterstate features of the board
(``board_features.py``: heights, holes, bumpiness, transitions, wells), which make it learn
several times faster than from the trunk alone.
"""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp

from dicode.domains.tetris.student.board_features import classic_features


class BoardTrunk(nn.Module):
    """Embeds a board ``(..., H, W)`` with 1 = filled into a vector."""

    column_features: int
    row_features: int
    hidden: int
    column_layers: int = 1

    @nn.compact
    def __call__(self, board: jnp.ndarray) -> jnp.ndarray:
        board = board.astype(jnp.float32)
        columns = jnp.swapaxes(board, -1, -2)  # (..., W, H)
        col = columns
        for i in range(self.column_layers):
            col = nn.relu(nn.Dense(self.column_features, name=f"column{i}")(col))
        row = nn.relu(nn.Dense(self.row_features, name="row")(board))  # (..., H, r)
        lead = board.shape[:-2]
        feats = jnp.concatenate([col.reshape(*lead, -1), row.reshape(*lead, -1)], axis=-1)
        return nn.relu(nn.Dense(self.hidden, name="mix")(feats))


class AfterstateActorCritic(nn.Module):
    """Logits over candidate placements from their afterstates; value of the current board.

    ``afterstates``: ``(..., A, H, W)``; ``lines``: ``(..., A)`` lines each candidate clears
    (part of the afterstate transition); ``legal``: ``(..., A)`` bool; ``board``: ``(..., H, W)``.
    Illegal candidates get a logit of ``-1e9`` so they are never sampled.
    """

    column_features: int = 16
    row_features: int = 8
    hidden: int = 64
    column_layers: int = 1
    lookahead: bool = True
    gamma: float = 0.99
    init_beta: float = 10.0
    context_size: int = 0  # length of the level context the value reads (0: none)
    board_features: bool = False  # the value also reads the board's classic features

    def setup(self) -> None:
        self.trunk = BoardTrunk(
            self.column_features, self.row_features, self.hidden, self.column_layers
        )
        self.policy_hidden = nn.Dense(self.hidden)
        self.policy_out = nn.Dense(1, kernel_init=nn.initializers.orthogonal(0.01))
        self.value_hidden = nn.Dense(self.hidden)
        self.value_out = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))
        self.line_reward = self.param("line_reward", nn.initializers.zeros, (5,))
        self.log_beta = self.param(
            "log_beta", nn.initializers.constant(jnp.log(self.init_beta)), ()
        )

    def value(self, board: jnp.ndarray, context: jnp.ndarray | None = None) -> jnp.ndarray:
        """State value of a board in its level's context (the same function scores afterstates);
        no context = the target game's (zeros)."""
        features = self.trunk(board)
        if self.board_features:
            features = jnp.concatenate([features, classic_features(board)], axis=-1)
        if self.context_size:
            if context is None:
                context = jnp.zeros((*features.shape[:-1], self.context_size), features.dtype)
            features = jnp.concatenate([features, context.astype(features.dtype)], axis=-1)
        return self.value_out(nn.relu(self.value_hidden(features)))[..., 0]

    def lookahead_logits(
        self, after_v: jnp.ndarray, lines: jnp.ndarray, legal: jnp.ndarray
    ) -> jnp.ndarray:
        """One-step lookahead: ``beta * (learned line reward + gamma * V(afterstate))``, masked."""
        lines_onehot = nn.one_hot(jnp.clip(lines, 0, 4), 5)
        q = lines_onehot @ self.line_reward + self.gamma * after_v
        return jnp.where(legal, jnp.exp(self.log_beta) * q, -1e9)

    def __call__(
        self,
        board: jnp.ndarray,
        afterstates: jnp.ndarray,
        lines: jnp.ndarray,
        legal: jnp.ndarray,
        context: jnp.ndarray | None = None,
        after_context: jnp.ndarray | None = None,
    ) -> tuple[jnp.ndarray, jnp.ndarray]:
        value = self.value(board, context)
        if self.lookahead:
            after_value = self.value(afterstates, after_context)
            return self.lookahead_logits(after_value, lines, legal), value
        cand = self.trunk(afterstates)  # (..., A, hidden)
        lines_onehot = nn.one_hot(jnp.clip(lines, 0, 4), 5)
        x = nn.relu(self.policy_hidden(jnp.concatenate([cand, lines_onehot], axis=-1)))
        logits = jnp.where(legal, self.policy_out(x)[..., 0], -1e9)
        return logits, value
