"""PPO over level slots: one jitted rollout-and-update (PureJaxRL layout, CleanRL clarity).

Papers: PPO (Schulman et al. 2017, arXiv:1707.06347), GAE (Schulman et al. 2016,
arXiv:1506.02438), PureJaxRL (Lu et al. 2022). The engine steps through DiCode's completion
bonus wrapper (``dicode.student.bonus``, in the reward's units: ``bonus_config``), which pays
on the placement that meets a goal, with ``R̄`` (the target's running mean return) passed in
as data every iteration.

Layout: S level *slots* x E environments. ``slots`` is a :class:`TetrisLevel` whose leaves carry
two leading axes ``(S, K)``: slot s holds a pool of K initial states and each of its E
environments resets from a uniformly drawn pool entry. Swapping levels means passing new
arrays (same shapes) plus ``slot_reset`` flags; it never recompiles. ``Trainer.trace_count``
counts how often the update was traced, so tests can prove it stays at one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import flax.struct
import jax
import jax.numpy as jnp
import optax
from flax.training.train_state import TrainState

from dicode.domains.tetris import engine
from dicode.domains.tetris.schema import TetrisLevel
from dicode.environment import draw_entries, slot_params, where_env
from dicode.student.bonus import BonusConfig, BonusParams, CompletionBonus
from dicode.student.gae import gae
from dicode.student.losses import clipped_surrogate
from dicode.student.tally import SlotStats, env_slots, slot_stats
from dicode.student.tetris import env
from dicode.student.tetris.config import PPOConfig
from dicode.student.tetris.networks import AfterstateActorCritic


@flax.struct.dataclass
class RunnerState:
    """Everything the update carries from one iteration to the next."""

    train: TrainState
    env_state: Any  # batched engine state, leading axis num_envs
    obs: env.Obs  # batched observation
    rng: jnp.ndarray
    episode_return: jnp.ndarray  # (N,) engine reward so far in the running episode
    episode_length: jnp.ndarray  # (N,) pieces so far in the running episode
    iteration: jnp.ndarray  # () int32


class _Step(flax.struct.PyTreeNode):
    obs: env.Obs
    after_value: jnp.ndarray  # V of every candidate at rollout time (used when detached)
    action: jnp.ndarray  # candidate slot (obs.placement maps it to the engine action)
    log_prob: jnp.ndarray
    value: jnp.ndarray
    reward: jnp.ndarray
    done: jnp.ndarray


def make_network(config: PPOConfig) -> AfterstateActorCritic:
    return AfterstateActorCritic(
        column_features=config.column_features,
        row_features=config.row_features,
        hidden=config.hidden,
        column_layers=config.column_layers,
        lookahead=config.lookahead,
        gamma=config.gamma,
        init_beta=config.init_beta,
        context_size=env.CONTEXT_SIZE if config.level_context else 0,
        board_features=config.board_features,
    )


def bonus_config(config: PPOConfig) -> BonusConfig:
    """The completion bonus's constants of a Tetris configuration (``PPOConfig.bonus_*``)."""
    return BonusConfig(
        config.bonus_floor, config.bonus_scale, config.bonus_least, config.bonus_paper
    )


def _slot_of_env(config: PPOConfig) -> jnp.ndarray:
    return env_slots(config.num_slots, config.envs_per_slot)


def _reset_states(key: jnp.ndarray, slots: TetrisLevel, slot_of_env: jnp.ndarray) -> Any:
    """Reset every environment from a uniformly drawn entry of its slot's pool."""
    k_pick, k_reset = jax.random.split(key)
    levels = slot_params(slots, slot_of_env, draw_entries(k_pick, slots, slot_of_env))
    return jax.vmap(env.reset)(jax.random.split(k_reset, slot_of_env.shape[0]), levels)


@dataclass
class Trainer:
    """A compiled PPO student for one configuration.

    ``init(seed, slots)`` builds the first :class:`RunnerState`; ``iterate(runner, slots,
    slot_reset, r_prev)`` runs one rollout of ``num_steps`` per environment and the PPO update
    and returns ``(runner, SlotStats, metrics)``.
    """

    config: PPOConfig
    trace_count: int = 0

    def __post_init__(self) -> None:
        self.network = make_network(self.config)
        self.env = CompletionBonus(engine, bonus_config(self.config))
        # One optimiser object: it is static in the runner, so a new one per init would
        # recompile `iterate` for every runner this trainer starts.
        self.optimizer = self._optimizer()
        self.iterate = jax.jit(self._iterate)

    def _optimizer(self) -> optax.GradientTransformation:
        c = self.config
        lr: float | optax.Schedule = c.learning_rate
        if c.anneal_lr:
            per_iter = c.update_epochs * c.num_minibatches
            lr = optax.linear_schedule(c.learning_rate, 0.0, c.num_iterations * per_iter)
        return optax.chain(optax.clip_by_global_norm(c.max_grad_norm), optax.adam(lr, eps=1e-5))

    def init(self, seed: int, slots: TetrisLevel) -> RunnerState:
        c = self.config
        rng = jax.random.PRNGKey(seed)
        rng, k_net, k_env = jax.random.split(rng, 3)
        states = _reset_states(k_env, slots, _slot_of_env(c))
        obs = jax.vmap(env.observe)(states)
        one = jax.tree_util.tree_map(lambda x: x[0], obs)
        params = self.network.init(
            k_net, one.board, one.afterstates, one.lines, one.legal, one.context, one.after_context
        )
        train = TrainState.create(apply_fn=self.network.apply, params=params, tx=self.optimizer)
        zeros = jnp.zeros((c.num_envs,), jnp.float32)
        runner = RunnerState(
            train=train,
            env_state=states,
            obs=obs,
            rng=rng,
            episode_return=zeros,
            episode_length=zeros.astype(jnp.int32),
            iteration=jnp.zeros((), jnp.int32),
        )
        # Committed like the update's outputs, so the first and later calls share one compile.
        return jax.device_put(runner, jax.devices()[0])

    def policy(self, params: Any, obs: env.Obs) -> tuple[jnp.ndarray, jnp.ndarray]:
        """Masked logits and values for a batch of observations."""
        out = self.network.apply(
            params, obs.board, obs.afterstates, obs.lines, obs.legal, obs.context,
            obs.after_context,
        )  # fmt: skip
        return cast(tuple[jnp.ndarray, jnp.ndarray], out)

    def _value(self, params: Any, board: jnp.ndarray, context: jnp.ndarray) -> jnp.ndarray:
        return cast(jnp.ndarray, self.network.apply(params, board, context, method="value"))

    def _act(self, params: Any, obs: env.Obs) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
        """Rollout-time logits, value and every candidate's value (zeros unless detached)."""
        if not self.config.detach_lookahead:
            logits, value = self.policy(params, obs)
            return logits, value, jnp.zeros(obs.legal.shape, jnp.float32)
        after_v = self._value(params, obs.afterstates, obs.after_context)
        value = self._value(params, obs.board, obs.context)
        return self._logits_from(params, after_v, obs), value, after_v

    def _logits_from(self, params: Any, after_v: jnp.ndarray, obs: env.Obs) -> jnp.ndarray:
        return cast(
            jnp.ndarray,
            self.network.apply(params, after_v, obs.lines, obs.legal, method="lookahead_logits"),
        )

    # ------------------------------------------------------------------------------------
    def _iterate(
        self,
        runner: RunnerState,
        slots: TetrisLevel,
        slot_reset: jnp.ndarray,
        r_prev: jnp.ndarray,
    ) -> tuple[RunnerState, SlotStats, dict[str, jnp.ndarray]]:
        self.trace_count += 1  # runs only while tracing: counts compilations
        c = self.config
        slot_of_env = _slot_of_env(c)

        # Environments whose slot received a new level start over on it.
        rng, k_reset = jax.random.split(runner.rng)
        renew = slot_reset[slot_of_env]
        env_state = where_env(renew, _reset_states(k_reset, slots, slot_of_env), runner.env_state)
        obs = jax.vmap(env.observe)(env_state)
        ep_ret = jnp.where(renew, 0.0, runner.episode_return)
        ep_len = jnp.where(renew, 0, runner.episode_length)
        params = runner.train.params
        # The step reads the level from the state; every slot pays the bonus on completion.
        n = c.num_envs
        step_params = BonusParams(env.PARAMS, jnp.full((n,), r_prev), jnp.ones((n,), bool))

        def env_step(carry: tuple, _: Any) -> tuple[tuple, tuple[_Step, tuple]]:
            env_state, obs, ep_ret, ep_len, rng = carry
            rng, k_act, k_step, k_reset = jax.random.split(rng, 4)
            logits, value, after_v = self._act(params, obs)
            action = jax.random.categorical(k_act, logits)
            log_prob = jax.nn.log_softmax(logits)[jnp.arange(c.num_envs), action]
            keys = jax.random.split(k_step, c.num_envs)
            placement = obs.placement[jnp.arange(c.num_envs), action]
            _, next_state, reward, terminated, info = jax.vmap(self.env.step)(
                keys, env_state, placement, step_params
            )
            ep_ret = ep_ret + info["engine_reward"]
            ep_len = ep_len + 1
            truncated = (ep_len >= c.train_piece_cap) & ~terminated
            done = terminated | truncated
            # A truncated episode is not a loss: bootstrap from the value of where it stopped.
            stop_context = jax.vmap(env.state_context)(next_state)
            stop_value = self._value(params, next_state.board, stop_context)
            shaped = reward * c.reward_scale  # the engine's reward + the bonus
            shaped = shaped + jnp.where(truncated, c.gamma * stop_value, 0.0)
            finished = (
                info["bonus"],
                done,
                info["completed"],
                jnp.where(done, ep_ret, 0.0),
                jnp.where(done, info["total_lines"], 0),
                jnp.where(done, ep_len, 0),
            )
            reset_state = _reset_states(k_reset, slots, slot_of_env)
            next_state = where_env(done, reset_state, next_state)
            next_obs = jax.vmap(env.observe)(next_state)
            ep_ret = jnp.where(done, 0.0, ep_ret)
            ep_len = jnp.where(done, 0, ep_len)
            step = _Step(obs, after_v, action, log_prob, value, shaped, done)
            return (next_state, next_obs, ep_ret, ep_len, rng), (step, finished)

        (env_state, obs, ep_ret, ep_len, rng), (traj, finished) = jax.lax.scan(
            env_step, (env_state, obs, ep_ret, ep_len, rng), None, c.num_steps
        )
        last_value = self._value(params, obs.board, obs.context)  # candidates not needed here
        advantages, targets = gae(traj, last_value, c.gamma, c.gae_lambda)
        train, rng, losses = self._update(runner.train, traj, advantages, targets, rng)

        bonus_f, done_f, succ_f, ret_f, lines_f, len_f = finished
        losses["bonus_sum"] = bonus_f.sum()
        sums = {"lines": lines_f.astype(jnp.int32), "pieces": len_f}
        stats = slot_stats(slot_of_env, c.num_slots, done_f, succ_f, ret_f, sums)
        new_runner = RunnerState(
            train=train,
            env_state=env_state,
            obs=obs,
            rng=rng,
            episode_return=ep_ret,
            episode_length=ep_len,
            iteration=runner.iteration + 1,
        )
        return new_runner, stats, losses

    def _update(
        self,
        train: TrainState,
        traj: _Step,
        advantages: jnp.ndarray,
        targets: jnp.ndarray,
        rng: jnp.ndarray,
    ) -> tuple[TrainState, jnp.ndarray, dict[str, jnp.ndarray]]:
        c = self.config

        def loss_fn(params: Any, batch: tuple) -> tuple[jnp.ndarray, dict[str, jnp.ndarray]]:
            step, adv, target = batch
            if c.detach_lookahead:
                # The candidates' values are data here: only beta and the line rewards move.
                logits = self._logits_from(params, step.after_value, step.obs)
                value = self._value(params, step.obs.board, step.obs.context)
            else:
                logits, value = self.policy(params, step.obs)
            logp_all = jax.nn.log_softmax(logits)
            log_prob = jnp.take_along_axis(logp_all, step.action[:, None], axis=1)[:, 0]
            pg = clipped_surrogate(log_prob, step.log_prob, adv, c.clip_eps)
            # No value clipping: it slows the critic, which here also drives the policy.
            v_loss = 0.5 * ((value - target) ** 2).mean()
            probs = jnp.exp(logp_all)
            entropy = -jnp.sum(jnp.where(step.obs.legal, probs * logp_all, 0.0), axis=-1).mean()
            total = pg + c.vf_coef * v_loss - c.ent_coef * entropy
            return total, {"policy_loss": pg, "value_loss": v_loss, "entropy": entropy}

        def epoch(carry: tuple, _: Any) -> tuple[tuple, dict[str, jnp.ndarray]]:
            train, rng = carry
            rng, k_perm = jax.random.split(rng)
            flat = jax.tree_util.tree_map(
                lambda x: x.reshape((c.batch_size, *x.shape[2:])), (traj, advantages, targets)
            )
            perm = jax.random.permutation(k_perm, c.batch_size)
            shuffled = jax.tree_util.tree_map(
                lambda x: x[perm].reshape((c.num_minibatches, c.minibatch_size, *x.shape[1:])),
                flat,
            )

            def minibatch(train: TrainState, batch: tuple) -> tuple[TrainState, dict]:
                grads, aux = jax.grad(loss_fn, has_aux=True)(train.params, batch)
                return train.apply_gradients(grads=grads), aux

            train, aux = jax.lax.scan(minibatch, train, shuffled)
            return (train, rng), aux

        (train, rng), aux = jax.lax.scan(epoch, (train, rng), None, c.update_epochs)
        return train, rng, jax.tree_util.tree_map(jnp.mean, aux)
