"""PPO with a GRU over maze level slots: one jitted rollout-and-update (PureJaxRL layout).

Papers: PPO (Schulman et al. 2017, arXiv:1707.06347), GAE (Schulman et al. 2016,
arXiv:1506.02438), PureJaxRL (Lu et al. 2022). Environment: ``dicode.domains.maze.engine``
(one env, ``dicode.environment``'s interface) vmapped over S slots × E envs, each env
resetting from a uniformly drawn layout of its slot's pool (:class:`MazeSlots`) — wrapped with
the completion bonus (``dicode.student.bonus``, ``MAZE_BONUS``) on the slots that pay it,
``R̄`` (the target's running mean return) an argument (data) of every iteration.

The GRU state is zeroed where an observation starts an episode: after an episode ends, and for
every env of a slot whose ``slot_reset`` flag is set (a new level was placed there). Swapping
levels means passing other slot arrays (same shapes) plus those flags; it never recompiles
(``Trainer.trace_count`` counts traces).

``learn`` (data, default True) skips the update when False: the rollout only measures (robust
PLR's rollouts of new levels). The metrics carry per-env level scores for PLR either way:
``pvl`` (mean positive GAE advantage), ``value_mean`` and ``return_max`` (the best finished
episode's return, −inf when none finished).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import optax
from flax.training.train_state import TrainState

from dicode.domains.maze import engine
from dicode.environment import draw_entries, slot_params, where_env
from dicode.student.bonus import BonusConfig, BonusParams, CompletionBonus
from dicode.student.gae import gae
from dicode.student.maze.config import MazePPOConfig
from dicode.student.maze.networks import MazeActorCritic, apply_policy
from dicode.student.recurrent import sequence_update
from dicode.student.tally import SlotStats, env_slots, slot_stats

#: The completion bonus in the maze's reward units (``dicode.student.bonus``): the paper's
#: d = 1 (the most a maze episode returns; its d = 20 is in Craftax's units) and k = 2, capped
#: at the target's running mean return (≤ 1), at least ε = 0.1 (the least a solve pays).
#: Measured before the cap (2 slots x 32 envs, 500k steps, target slot DR + one bonus-paying
#: slot of DR mazes): d = 20 held the target's DR solve rate at 0.48 and the held-out rate at
#: 0.01, d = 1 reached 0.86 / 0.30, the same as without a bonus (0.90 / 0.25); the 20x larger
#: rewards swamp the value loss and, through the gradient-norm clip, the policy gradient.
MAZE_BONUS = BonusConfig(floor=1.0, scale=2.0, least=0.1)
_ENV = CompletionBonus(engine, MAZE_BONUS)


@flax.struct.dataclass
class MazeSlots:
    """S level slots: pools of K layouts (leaves ``(S, K, ...)``) and whether each slot's level
    pays the completion bonus."""

    levels: engine.MazeParams
    pays_bonus: jax.Array  # (S,) bool


def _start(
    key: jax.Array, slots: MazeSlots, slot_of_env: jax.Array
) -> tuple[jax.Array, engine.MazeState]:
    """Every env's start on a uniformly drawn layout of its slot's pool. The maze's reset draws
    nothing (the drawn layout is the whole start), so the key only draws the layouts."""
    entries = draw_entries(key, slots.levels, slot_of_env)
    levels = slot_params(slots.levels, slot_of_env, entries)
    return jax.vmap(engine.reset, in_axes=(None, 0))(key, levels)


def _restart(
    key: jax.Array,
    state: engine.MazeState,
    which: jax.Array,
    slots: MazeSlots,
    slot_of_env: jax.Array,
) -> tuple[jax.Array, engine.MazeState]:
    """Envs where ``which`` (N,) holds start afresh on their slot; every env's observation."""
    state = where_env(which, _start(key, slots, slot_of_env)[1], state)
    return jax.vmap(engine.observe)(state), state


@flax.struct.dataclass
class RunnerState:
    """Everything the update carries from one iteration to the next."""

    train: TrainState
    env: engine.MazeState  # N envs (leading axis); env i plays slot ``env_slots(S, E)[i]``
    obs: jnp.ndarray  # (N, OBS_SIZE) current observations
    starts: jnp.ndarray  # (N,) bool: the current observation begins an episode (GRU reset)
    hidden: jnp.ndarray  # (N, H) GRU state
    rng: jnp.ndarray
    episode_return: jnp.ndarray  # (N,) engine reward so far in the running episode (no bonus)
    iteration: jnp.ndarray  # () int32


class _Step(flax.struct.PyTreeNode):
    obs: jnp.ndarray
    start: jnp.ndarray  # the GRU resets before reading this observation
    bonus_slot: jnp.ndarray  # the env's slot pays the completion bonus (critic input)
    action: jnp.ndarray
    log_prob: jnp.ndarray
    value: jnp.ndarray
    reward: jnp.ndarray  # engine reward + completion bonus
    done: jnp.ndarray  # the episode ended with this step


@dataclass
class Trainer:
    """A compiled PPO-GRU student for one configuration.

    ``init(seed, slots)`` builds the first :class:`RunnerState`; ``iterate(runner, slots,
    slot_reset, r_prev)`` runs ``num_steps`` steps in every env and the PPO update and returns
    ``(runner, SlotStats, metrics)``; ``restart(runner, slots)`` starts every env afresh with a
    zero GRU state (used after loading a checkpoint).
    """

    config: MazePPOConfig
    trace_count: int = 0

    def __post_init__(self) -> None:
        c = self.config
        self.network = MazeActorCritic(engine.NUM_ACTIONS, c.embed_size, c.hidden_size)
        self._iterate_jit = jax.jit(self._iterate)
        self._start = jax.jit(_start)

    def iterate(
        self,
        runner: RunnerState,
        slots: MazeSlots,
        slot_reset: jnp.ndarray,
        r_prev: jnp.ndarray,
        learn: bool = True,
    ) -> tuple[RunnerState, SlotStats, dict[str, jnp.ndarray]]:
        """One rollout and (when ``learn``) one PPO update; ``learn`` is data, so both share
        one compile."""
        return self._iterate_jit(runner, slots, slot_reset, r_prev, jnp.asarray(learn, bool))

    def _optimizer(self) -> optax.GradientTransformation:
        c = self.config
        lr: float | optax.Schedule = c.learning_rate
        if c.anneal_lr:
            updates = c.num_iterations * c.update_epochs * c.num_minibatches
            lr = optax.linear_schedule(c.learning_rate, 0.0, updates)
        return optax.chain(optax.clip_by_global_norm(c.max_grad_norm), optax.adam(lr, eps=1e-5))

    def init(self, seed: int, slots: MazeSlots) -> RunnerState:
        rng, k_net = jax.random.split(jax.random.PRNGKey(seed))
        train = self.init_train(k_net)
        rng, fields = self._start_envs(rng, slots)
        runner = RunnerState(train=train, rng=rng, iteration=jnp.zeros((), jnp.int32), **fields)
        # Committed like the update's outputs, so the first and later calls share one compile.
        return jax.device_put(runner, jax.devices()[0])

    def init_train(self, key: jax.Array) -> TrainState:
        """Fresh network parameters and optimiser state."""
        n = self.config.num_envs
        obs = jnp.zeros((1, n, engine.OBS_SIZE), jnp.float32)
        flags = jnp.zeros((1, n), bool)
        hidden = self.network.initial_hidden(n)
        params = self.network.init(key, hidden, obs, jnp.ones((1, n), bool), flags)
        train = TrainState.create(apply_fn=self.network.apply, params=params, tx=self._optimizer())
        # A strongly typed step (not Python's 0) is what a checkpoint restores: same compile.
        return replace(train, step=jnp.zeros((), jnp.int32))

    def restart(self, runner: RunnerState, slots: MazeSlots) -> RunnerState:
        """Every env starts a new episode on its slot; GRU states and episode sums are zeroed."""
        rng, fields = self._start_envs(runner.rng, slots)
        return jax.device_put(replace(runner, rng=rng, **fields), jax.devices()[0])

    def _start_envs(self, rng: jax.Array, slots: MazeSlots) -> tuple[jax.Array, dict[str, Any]]:
        rng, k_reset = jax.random.split(rng)
        c = self.config
        obs, env = self._start(k_reset, slots, env_slots(c.num_slots, c.envs_per_slot))
        n = c.num_envs
        return rng, {
            "env": env,
            "obs": obs,
            "starts": jnp.ones((n,), bool),
            "hidden": self.network.initial_hidden(n),
            "episode_return": jnp.zeros((n,), jnp.float32),
        }

    # ------------------------------------------------------------------------------------
    def _iterate(
        self,
        runner: RunnerState,
        slots: MazeSlots,
        slot_reset: jnp.ndarray,
        r_prev: jnp.ndarray,
        learn: jnp.ndarray,
    ) -> tuple[RunnerState, SlotStats, dict[str, jnp.ndarray]]:
        self.trace_count += 1  # runs only while tracing: counts compilations
        c = self.config
        slot_of_env = env_slots(c.num_slots, c.envs_per_slot)
        bonus_slot = slots.pays_bonus[slot_of_env]
        n = c.num_envs
        # The step reads only the params' static step cap (each env carries its own layout).
        levels = slot_params(slots.levels, slot_of_env, jnp.zeros((n,), jnp.int32))
        step_params = BonusParams(levels, jnp.full((n,), r_prev), bonus_slot)

        # Envs whose slot received a new level start over on it, with a fresh GRU state.
        rng, k_reset = jax.random.split(runner.rng)
        renew = slot_reset[slot_of_env]
        obs, env_state = _restart(k_reset, runner.env, renew, slots, slot_of_env)
        starts = runner.starts | renew
        ep_ret = jnp.where(renew, 0.0, runner.episode_return)
        params = runner.train.params
        first_hidden = runner.hidden

        def env_step(carry: tuple, _: Any) -> tuple[tuple, tuple[_Step, tuple]]:
            env_state, obs, starts, hidden, ep_ret, rng = carry
            rng, k_act, k_step = jax.random.split(rng, 3)
            hidden, logits, value = apply_policy(
                self.network, params, hidden, obs[None], starts[None], bonus_slot[None]
            )
            logits, value = logits[0], value[0]
            action = jax.random.categorical(k_act, logits)
            log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], 1)[:, 0]
            _, env_state, reward, done, info = jax.vmap(_ENV.step, in_axes=(None, 0, 0, 0))(
                k_step, env_state, action, step_params
            )
            # Finished envs restart on their slot (the step's key draws their layouts).
            next_obs, env_state = _restart(k_step, env_state, done, slots, slot_of_env)
            ep_ret = ep_ret + info["engine_reward"]
            finished = (
                done,
                info["success"],
                jnp.where(done, ep_ret, 0.0),
                jnp.where(done, info["length"], 0),
                info["bonus"],
            )
            step = _Step(obs, starts, bonus_slot, action, log_prob, value, reward, done)
            ep_ret = jnp.where(done, 0.0, ep_ret)
            return (env_state, next_obs, done, hidden, ep_ret, rng), (step, finished)

        carry = (env_state, obs, starts, first_hidden, ep_ret, rng)
        carry, (traj, finished) = jax.lax.scan(env_step, carry, None, c.num_steps)
        env_state, obs, starts, hidden, ep_ret, rng = carry
        _, _, last_value = apply_policy(
            self.network, params, hidden, obs[None], starts[None], bonus_slot[None]
        )
        advantages, targets = gae(traj, last_value[0], c.gamma, c.gae_lambda)

        def update(rng: jax.Array) -> tuple[TrainState, jax.Array, dict[str, jnp.ndarray]]:
            return self._update(runner.train, first_hidden, traj, advantages, targets, rng)

        def measure_only(rng: jax.Array) -> tuple[TrainState, jax.Array, dict[str, jnp.ndarray]]:
            zero = jnp.zeros((), jnp.float32)
            return runner.train, rng, {"policy_loss": zero, "value_loss": zero, "entropy": zero}

        # A cond, not a multiply by zero: Adam's moments and step count stay as they were.
        train, rng, losses = jax.lax.cond(learn, update, measure_only, rng)

        done_f, success_f, return_f, length_f, bonus_f = finished
        losses["bonus_sum"] = bonus_f.sum()
        # Per-env level scores (PLR): the rollout's positive advantages, values, best return.
        losses["pvl"] = jnp.maximum(advantages, 0.0).mean(axis=0)
        losses["value_mean"] = traj.value.mean(axis=0)
        losses["return_max"] = jnp.where(done_f, return_f, -jnp.inf).max(axis=0)
        sums = {"length": length_f}
        stats = slot_stats(slot_of_env, c.num_slots, done_f, success_f, return_f, sums)
        new_runner = RunnerState(
            train=train,
            env=env_state,
            obs=obs,
            starts=starts,
            hidden=hidden,
            rng=rng,
            episode_return=ep_ret,
            iteration=runner.iteration + 1,
        )
        return new_runner, stats, losses

    def _update(
        self,
        train: TrainState,
        first_hidden: jnp.ndarray,
        traj: _Step,
        advantages: jnp.ndarray,
        targets: jnp.ndarray,
        rng: jnp.ndarray,
    ) -> tuple[TrainState, jnp.ndarray, dict[str, jnp.ndarray]]:
        """PPO epochs over whole env sequences (``dicode.student.recurrent``)."""

        def replay(params: Any, hidden: jnp.ndarray, step: Any) -> tuple[jnp.ndarray, jnp.ndarray]:
            _, logits, value = apply_policy(
                self.network, params, hidden, step.obs, step.start, step.bonus_slot
            )
            return logits, value

        return sequence_update(
            train, first_hidden, traj, advantages, targets, rng, self.config, replay
        )
