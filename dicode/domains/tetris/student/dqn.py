"""A DQN on the corrected placement space: the field report's baseline, done right.

The field report trained a 40-way Q head on raw boards with a placement encoding that could not
reach 11 of the 162 placements, and cleared 0 lines. Here every action is a reachable placement
(the engine's ``rotation·W + leftmost occupied column``, masked) and one shared network scores
each placement by the board it leads to: ``Q(s, a) = q(afterstate_a, lines_a)``. Training is
DQN (Mnih et al. 2015, "Human-level control through deep reinforcement learning"): ε-greedy
vectorised play, a uniform replay buffer, a periodically copied target network, Huber loss on
``r + γ·max_a' Q_target(s', a')``. One jitted function runs a chunk of steps; the same trunk as
the PPO student (``networks.BoardTrunk``) keeps the comparison about the algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp
import optax

from dicode.domains.tetris.placements import afterstates, place
from dicode.domains.tetris.schema import BOARD_HEIGHT, BOARD_WIDTH, target_level
from dicode.domains.tetris.student import env
from dicode.domains.tetris.student.networks import BoardTrunk


@dataclass(frozen=True)
class DQNConfig:
    """DQN hyperparameters (defaults picked for the 2-core CPU; training seeds only)."""

    num_envs: int = 32  # environments stepped together
    buffer_size: int = 50_000  # transitions kept
    batch_size: int = 128  # transitions per gradient step
    learning_rate: float = 1e-3  # Adam step size
    gamma: float = 0.99  # discount per piece
    eps_start: float = 1.0  # exploration at the start
    eps_end: float = 0.02  # exploration after the decay
    eps_decay_steps: int = 50_000  # env steps of the linear decay
    learning_starts: int = 2_000  # env steps before the first update
    target_every: int = 250  # gradient steps between target-network copies
    reward_scale: float = 0.1  # rewards are multiplied by this
    column_features: int = 16
    row_features: int = 8
    hidden: int = 32
    column_layers: int = 2
    seed: int = 0


class AfterstateQ(nn.Module):
    """``Q`` of every placement from its afterstate; same call signature as the PPO network."""

    column_features: int
    row_features: int
    hidden: int
    column_layers: int

    @nn.compact
    def __call__(
        self, board: jnp.ndarray, after: jnp.ndarray, lines: jnp.ndarray, legal: jnp.ndarray
    ) -> tuple[jnp.ndarray, jnp.ndarray]:
        trunk = BoardTrunk(self.column_features, self.row_features, self.hidden, self.column_layers)
        x = jnp.concatenate([trunk(after), nn.one_hot(jnp.clip(lines, 0, 4), 5)], axis=-1)
        q = nn.Dense(1)(nn.relu(nn.Dense(self.hidden)(x)))[..., 0]
        q = jnp.where(legal, q, -1e9)
        del board  # Q needs only the afterstates; the board is in the signature for evaluate.py
        return q, jnp.max(q, axis=-1)


@flax.struct.dataclass
class Replay:
    board: jnp.ndarray  # (C, H, W) uint8
    piece: jnp.ndarray  # (C,)
    action: jnp.ndarray  # (C,)
    reward: jnp.ndarray  # (C,)
    done: jnp.ndarray  # (C,)
    next_board: jnp.ndarray
    next_piece: jnp.ndarray
    size: jnp.ndarray  # ()
    pos: jnp.ndarray  # ()


@flax.struct.dataclass
class DQNState:
    params: Any
    target_params: Any
    opt_state: Any
    env_state: Any
    replay: Replay
    rng: jnp.ndarray
    env_steps: jnp.ndarray
    updates: jnp.ndarray
    lines_done: jnp.ndarray  # lines of finished episodes (summed)
    episodes_done: jnp.ndarray


class DQN:
    """``init()`` then ``run(state, vector_steps)`` (jitted, chunk length static)."""

    def __init__(self, config: DQNConfig) -> None:
        self.config = config
        self.network = AfterstateQ(
            config.column_features, config.row_features, config.hidden, config.column_layers
        )
        self.tx = optax.adam(config.learning_rate)
        self.run = jax.jit(self._run, static_argnums=1)

    def init(self) -> DQNState:
        c = self.config
        rng = jax.random.PRNGKey(c.seed)
        rng, k_net, k_env = jax.random.split(rng, 3)
        level = target_level()
        states = jax.vmap(lambda k: env.reset(k, level))(jax.random.split(k_env, c.num_envs))
        after = afterstates(states.board[0], states.piece[0])
        params = self.network.init(k_net, states.board[0], after.boards, after.lines, after.legal)
        zeros = jnp.zeros((c.buffer_size,), jnp.float32)
        boards = jnp.zeros((c.buffer_size, BOARD_HEIGHT, BOARD_WIDTH), jnp.uint8)
        ints = jnp.zeros((c.buffer_size,), jnp.int32)
        replay = Replay(boards, ints, ints, zeros, zeros, boards, ints, jnp.int32(0), jnp.int32(0))
        return DQNState(
            params,
            params,
            self.tx.init(params),
            states,
            replay,
            rng,
            jnp.int32(0),
            jnp.int32(0),
            jnp.int32(0),
            jnp.int32(0),
        )

    def _q_all(self, params: Any, board: jnp.ndarray, piece: jnp.ndarray) -> tuple[Any, Any]:
        after = jax.vmap(afterstates)(board, piece)
        q, _ = self.network.apply(params, board, after.boards, after.lines, after.legal)
        return q, after.legal

    def _run(self, state: DQNState, vector_steps: int) -> DQNState:
        c = self.config
        level = target_level()

        def loss_fn(params: Any, target_params: Any, batch: tuple) -> jnp.ndarray:
            board, piece, action, reward, done, next_board, next_piece = batch
            chosen = jax.vmap(place)(board, piece, action)
            q, _ = self.network.apply(
                params,
                board,
                chosen.boards[:, None],
                chosen.lines[:, None],
                jnp.ones((board.shape[0], 1), bool),
            )
            next_q, next_legal = self._q_all(target_params, next_board, next_piece)
            best = jnp.where(next_legal.any(-1), next_q.max(-1), 0.0)
            target = reward + c.gamma * (1.0 - done) * best
            return optax.huber_loss(q[:, 0], jax.lax.stop_gradient(target)).mean()

        def one(state: DQNState, _: Any) -> tuple[DQNState, None]:
            rng, k_eps, k_rand, k_step, k_reset, k_batch = jax.random.split(state.rng, 6)
            s = state.env_state
            q, legal = self._q_all(state.params, s.board, s.piece)
            frac = jnp.clip(state.env_steps / c.eps_decay_steps, 0.0, 1.0)
            eps = c.eps_start + frac * (c.eps_end - c.eps_start)
            random_action = jax.random.categorical(k_rand, jnp.where(legal, 0.0, -1e9))
            explore = jax.random.uniform(k_eps, (c.num_envs,)) < eps
            action = jnp.where(explore, random_action, jnp.argmax(q, -1))
            keys = jax.random.split(k_step, c.num_envs)
            nxt, reward, done, info = jax.vmap(env.step)(keys, s, action)
            # Store the transitions (ring buffer).
            idx = (state.replay.pos + jnp.arange(c.num_envs)) % c.buffer_size
            r = state.replay
            replay = Replay(
                r.board.at[idx].set(s.board),
                r.piece.at[idx].set(s.piece),
                r.action.at[idx].set(action),
                r.reward.at[idx].set(reward * c.reward_scale),
                r.done.at[idx].set(done.astype(jnp.float32)),
                r.next_board.at[idx].set(nxt.board),
                r.next_piece.at[idx].set(nxt.piece),
                jnp.minimum(r.size + c.num_envs, c.buffer_size),
                (r.pos + c.num_envs) % c.buffer_size,
            )
            lines_done = state.lines_done + jnp.sum(jnp.where(done, info["total_lines"], 0))
            episodes_done = state.episodes_done + jnp.sum(done)
            fresh = jax.vmap(lambda k: env.reset(k, level))(jax.random.split(k_reset, c.num_envs))
            nxt = jax.tree_util.tree_map(
                lambda a, b: jnp.where(done.reshape(done.shape + (1,) * (a.ndim - 1)), a, b),
                fresh,
                nxt,
            )
            # One gradient step per vector step once the buffer has warmed up.
            pick = jax.random.randint(k_batch, (c.batch_size,), 0, jnp.maximum(replay.size, 1))
            batch = (
                replay.board[pick],
                replay.piece[pick],
                replay.action[pick],
                replay.reward[pick],
                replay.done[pick],
                replay.next_board[pick],
                replay.next_piece[pick],
            )
            grads = jax.grad(loss_fn)(state.params, state.target_params, batch)
            updates, opt_state = self.tx.update(grads, state.opt_state, state.params)
            learn = state.env_steps >= c.learning_starts
            params = jax.tree_util.tree_map(
                lambda p, u: jnp.where(learn, p + u, p), state.params, updates
            )
            opt_state = jax.tree_util.tree_map(
                lambda new, old: jnp.where(learn, new, old), opt_state, state.opt_state
            )
            n_updates = state.updates + learn.astype(jnp.int32)
            copy = learn & (n_updates % c.target_every == 0)
            target = jax.tree_util.tree_map(
                lambda p, t: jnp.where(copy, p, t), params, state.target_params
            )
            return DQNState(
                params,
                target,
                opt_state,
                nxt,
                replay,
                rng,
                state.env_steps + c.num_envs,
                n_updates,
                lines_done,
                episodes_done,
            ), None

        state, _ = jax.lax.scan(one, state, None, vector_steps)
        return state
