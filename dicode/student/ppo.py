"""One PPO for every world: a jitted rollout-and-update over S level slots x E environments.

Papers: PPO (Schulman et al. 2017, arXiv:1707.06347), GAE (Schulman et al. 2016,
arXiv:1506.02438), PureJaxRL (Lu et al. 2022) for the layout, its ``ppo_rnn`` for the
recurrent update. PureJaxRL's ``make_train(config)`` returns one ``train(rng)`` that scans the
update; here the scan's body is :meth:`SlotPPO.iterate`, compiled once and called by the slot
loop (``dicode.student.loop``), because the curriculum writes other levels into the slots
between iterations. ``SlotPPO(config, world, policy, bonus)`` is that ``make_train``: generic in

- the **world** (:class:`SlotWorld`): the engine (``dicode.environment``'s interface), wrapped
  here by DiCode's completion bonus (``dicode.student.bonus``, in the world's units, R̄ an
  argument — data — of every iteration), and how the world's environments start and restart
  on their slots' pools, what a step's keys are, and what a finished episode reports;
- the **policy** (:class:`Policy`): a feed-forward network (Tetris's afterstate scorer) or a
  recurrent one (:class:`RecurrentPolicy`: a GRU or a GTrXL) whose memory the rollout carries
  step by step and the update replays over whole environment sequences from the rollout's
  first memory (minibatches are groups of environments); a feed-forward update shuffles
  single steps.

Slot swaps: ``iterate(runner, slots, slot_reset, r_prev[, learn])`` (``iteration``: the same
function before ``jax.jit``, for programs that chain iterations on the device) takes other slot
arrays (same shapes) plus ``slot_reset`` flags: the environments of a flagged slot start over
(their memory too). It never recompiles; ``SlotPPO.trace_count`` counts the traces. ``learn`` False
skips the update (robust PLR's measuring rollouts); an array ``learn`` is data (one compile for
both). The metrics carry per-env level scores for PLR: ``pvl`` (mean positive GAE advantage),
``value_mean`` and ``return_max`` (the best finished episode's return, −inf when none).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Protocol

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp
import optax
from flax.training.train_state import TrainState

from dicode.environment import Environment
from dicode.student.bonus import BonusConfig, BonusParams, CompletionBonus
from dicode.student.gae import gae
from dicode.student.losses import LossWeights, ppo_loss
from dicode.student.tally import SlotStats, env_slots, slot_stats

Keys = tuple[jax.Array, jax.Array, jax.Array]

#: The update's figures among ``iterate``'s metrics (means over its minibatches; 0 without one).
LOSSES = ("policy_loss", "value_loss", "entropy")


class PPOHyperparameters(LossWeights, Protocol):
    """What the PPO reads of a world's config (each world's dataclass documents them)."""

    @property
    def num_slots(self) -> int: ...
    @property
    def envs_per_slot(self) -> int: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def num_steps(self) -> int: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def gamma(self) -> float: ...
    @property
    def gae_lambda(self) -> float: ...
    @property
    def learning_rate(self) -> float: ...
    @property
    def anneal_lr(self) -> bool: ...
    @property
    def num_iterations(self) -> int: ...
    @property
    def update_epochs(self) -> int: ...
    @property
    def num_minibatches(self) -> int: ...
    @property
    def max_grad_norm(self) -> float: ...


class EpisodeEnd(NamedTuple):
    """What a step reports for the per-slot statistics (``(N,)`` each)."""

    over: jax.Array  # an episode (or a level's attempt at its goal) ended here
    success: jax.Array  # counted as a success
    sums: dict[str, jax.Array]  # the world's own per-episode figures (read where ``over``)


class SlotWorld(Protocol):
    """A world's environments on slots: the world's own plug-in of the PPO."""

    @property
    def environment(self) -> Environment[Any, Any, Any]:
        """The engine: one environment, no auto-reset."""
        ...

    @property
    def step_keys(self) -> int:
        """How many keys a rollout step splits off for the world (besides the action's)."""
        ...

    def first_keys(self, seed: int) -> Keys:
        """``(rng, network key, start key)`` of a new runner."""
        ...

    def step_and_restart_keys(self, keys: Sequence[jax.Array]) -> tuple[jax.Array, jax.Array]:
        """The engine step's key and the restart's key, from the ``step_keys`` keys."""
        ...

    def example_obs(self) -> Any:
        """One environment's observation (zeros): the shapes the network is built for."""
        ...

    def start(self, key: jax.Array, slots: Any, slot_of_env: jax.Array) -> tuple[Any, Any]:
        """``(obs, state)`` of every env started on a drawn entry of its slot's pool."""
        ...

    def restart(
        self, key: jax.Array, state: Any, which: jax.Array, slots: Any, slot_of_env: jax.Array
    ) -> tuple[Any, Any]:
        """The envs where ``which`` (N,) holds start afresh; ``(obs, state)`` of every env."""
        ...

    def step_params(self, slots: Any, slot_of_env: jax.Array) -> Any:
        """The engine's params of every env for a step."""
        ...

    def pays(self, slots: Any, slot_of_env: jax.Array) -> jax.Array:
        """(N,) bool: the env's level pays the completion bonus."""
        ...

    def engine_action(self, obs: Any, action: jax.Array) -> jax.Array:
        """The engine's action for the policy's ``action`` (N,)."""
        ...

    def episode_end(
        self, done: jax.Array, info: dict[str, jax.Array], length: jax.Array
    ) -> EpisodeEnd:
        """What the step ends for the statistics; ``length``: the episode's steps so far."""
        ...


class Policy(Protocol):
    """A network as the PPO uses it. Observations are batched ``(N, ...)``; ``starts`` (N,)
    marks an observation that begins an episode (a recurrent memory resets there); ``pays``
    (N,) whether the env's level pays the bonus (a critic may read it)."""

    @property
    def network(self) -> nn.Module: ...
    @property
    def recurrent(self) -> bool:
        """The update replays whole env sequences from the rollout's first memory (else it
        shuffles single steps)."""
        ...

    @property
    def clip_value(self) -> bool:
        """PPO's clipped value loss (else the plain squared error)."""
        ...

    def init(self, key: jax.Array, example_obs: Any, num_envs: int) -> Any:
        """Fresh network parameters."""
        ...

    def initial_hidden(self, num_envs: int) -> Any:
        """The memory at an episode's start (``()`` for a feed-forward network)."""
        ...

    def act(
        self, params: Any, hidden: Any, obs: Any, starts: jax.Array, pays: jax.Array
    ) -> tuple[Any, jax.Array, jax.Array, Any]:
        """Rollout step: ``(memory, logits (N, A), value (N,), extra)``; ``extra`` is kept
        in the trajectory for :meth:`replay`."""
        ...

    def last_value(
        self, params: Any, hidden: Any, obs: Any, starts: jax.Array, pays: jax.Array
    ) -> jax.Array:
        """The value (N,) of the observation after the rollout (GAE's bootstrap)."""
        ...

    def replay(self, params: Any, hidden: Any, steps: Step) -> tuple[jax.Array, jax.Array]:
        """Logits and values of a minibatch of stored steps: ``(T, n)`` whole sequences from
        the memory ``hidden`` when recurrent, else ``(B,)`` single steps (``hidden`` None)."""
        ...

    def legal(self, obs: Any) -> jax.Array | None:
        """The legal actions' mask (the entropy counts only those), or None: all legal."""
        ...


@dataclass(frozen=True)
class TimeLimit:
    """Training episodes are cut after ``cap`` steps; a cut is not a loss: its last reward
    gets ``γ · stop_value(params, state)`` of the state where it stopped."""

    cap: int
    stop_value: Callable[[Any, Any], jax.Array]


@flax.struct.dataclass
class RunnerState:
    """Everything the update carries from one iteration to the next."""

    train: TrainState
    env_state: Any  # N envs (leading axis); env i plays slot ``env_slots(S, E)[i]``
    obs: Any  # (N, ...) current observations
    starts: jax.Array  # (N,) bool: the current observation begins an episode (memory reset)
    hidden: Any  # the policy's memory (leading axis N), ``()`` for a feed-forward policy
    rng: jax.Array
    episode_return: jax.Array  # (N,) engine reward so far in the running episode (no bonus)
    episode_length: jax.Array  # (N,) steps so far in the running episode
    iteration: jax.Array  # () int32


class Step(flax.struct.PyTreeNode):
    """One rollout step of every env, as the update reads it."""

    obs: Any
    start: jax.Array  # the memory resets before reading this observation
    pays: jax.Array  # the env's level pays the completion bonus
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array  # engine reward + completion bonus (scaled; + a cut's bootstrap)
    done: jax.Array  # the episode ended with this step
    extra: Any  # the policy's own rollout output (``Policy.act``)


class SlotPPO:
    """A compiled PPO student for one configuration, world and policy (module docstring).

    ``init(seed, slots)`` builds the first :class:`RunnerState`; ``iterate(runner, slots,
    slot_reset, r_prev[, learn])`` runs ``num_steps`` steps in every env and the PPO update and
    returns ``(runner, SlotStats, metrics)``; ``restart(runner, slots)`` starts every env
    afresh with a fresh memory (after loading a checkpoint).
    """

    def __init__(
        self,
        config: PPOHyperparameters,
        world: SlotWorld,
        policy: Policy,
        bonus: BonusConfig,
        reward_scale: float = 1.0,
        time_limit: TimeLimit | None = None,
    ) -> None:
        self.config, self.world, self.policy = config, world, policy
        self.network = policy.network
        self.env = CompletionBonus(world.environment, bonus)
        self.reward_scale, self.time_limit = reward_scale, time_limit
        self.trace_count = 0
        # One optimiser object: it is static in the runner, so a new one per runner would
        # recompile `iterate` for every runner this PPO starts.
        self.optimizer = self._optimizer()
        self._example_obs = world.example_obs()
        self._start = jax.jit(world.start)
        self.iterate = jax.jit(self.iteration)

    def _optimizer(self) -> optax.GradientTransformation:
        c = self.config
        lr: float | optax.Schedule = c.learning_rate
        if c.anneal_lr:
            updates = c.num_iterations * c.update_epochs * c.num_minibatches
            lr = optax.linear_schedule(c.learning_rate, 0.0, updates)
        return optax.chain(optax.clip_by_global_norm(c.max_grad_norm), optax.adam(lr, eps=1e-5))

    def _slot_of_env(self) -> jax.Array:
        return env_slots(self.config.num_slots, self.config.envs_per_slot)

    def init(self, seed: int, slots: Any) -> RunnerState:
        rng, k_net, k_env = self.world.first_keys(seed)
        train = self.init_train(k_net)
        fields = self._start_envs(k_env, slots)
        runner = RunnerState(train=train, rng=rng, iteration=jnp.zeros((), jnp.int32), **fields)
        # Committed like the update's outputs, so the first and later calls share one compile.
        return jax.device_put(runner, jax.devices()[0])

    def init_train(self, key: jax.Array) -> TrainState:
        """Fresh network parameters and optimiser state."""
        params = self.policy.init(key, self._example_obs, self.config.num_envs)
        train = TrainState.create(apply_fn=self.network.apply, params=params, tx=self.optimizer)
        # A strongly typed step (not Python's 0) is what a checkpoint restores: same compile.
        return replace(train, step=jnp.zeros((), jnp.int32))

    def restart(self, runner: RunnerState, slots: Any) -> RunnerState:
        """Every env starts a new episode on its slot; memories and episode sums are zeroed."""
        rng, k_env = jax.random.split(runner.rng)
        fields = self._start_envs(k_env, slots)
        return jax.device_put(replace(runner, rng=rng, **fields), jax.devices()[0])

    def _start_envs(self, key: jax.Array, slots: Any) -> dict[str, Any]:
        n = self.config.num_envs
        obs, state = self._start(key, slots, self._slot_of_env())
        return {
            "env_state": state,
            "obs": obs,
            "starts": jnp.ones((n,), bool),
            "hidden": self.policy.initial_hidden(n),
            "episode_return": jnp.zeros((n,), jnp.float32),
            "episode_length": jnp.zeros((n,), jnp.int32),
        }

    # ------------------------------------------------------------------------------------
    def iteration(
        self,
        runner: RunnerState,
        slots: Any,
        slot_reset: jax.Array,
        r_prev: jax.Array,
        learn: jax.Array | bool = True,
    ) -> tuple[RunnerState, SlotStats, dict[str, jax.Array]]:
        self.trace_count += 1  # runs only while tracing: counts compilations
        c, world, policy = self.config, self.world, self.policy
        slot_of_env = self._slot_of_env()
        n = c.num_envs
        pays = world.pays(slots, slot_of_env)
        step_params = BonusParams(
            world.step_params(slots, slot_of_env), jnp.full((n,), r_prev), pays
        )

        # Envs whose slot received a new level start over on it: their first observation starts
        # an episode, so the memory resets as after a done.
        rng, k_reset = jax.random.split(runner.rng)
        renew = slot_reset[slot_of_env]
        obs, env_state = world.restart(k_reset, runner.env_state, renew, slots, slot_of_env)
        starts = runner.starts | renew
        ep_ret = jnp.where(renew, 0.0, runner.episode_return)
        ep_len = jnp.where(renew, 0, runner.episode_length)
        params = runner.train.params
        first_hidden = runner.hidden

        def env_step(carry: tuple, _: Any) -> tuple[tuple, tuple[Step, tuple]]:
            env_state, obs, starts, hidden, ep_ret, ep_len, rng = carry
            rng, k_act, *k_world = jax.random.split(rng, 2 + world.step_keys)
            k_step, k_restart = world.step_and_restart_keys(k_world)
            hidden, logits, value, extra = policy.act(params, hidden, obs, starts, pays)
            action = jax.random.categorical(k_act, logits)
            log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], 1)[:, 0]
            _, env_state, reward, done, info = jax.vmap(self.env.step)(
                jax.random.split(k_step, n), env_state, world.engine_action(obs, action),
                step_params,
            )  # fmt: skip
            ep_ret = ep_ret + info["engine_reward"]
            ep_len = ep_len + 1
            reward = reward * self.reward_scale
            if self.time_limit is not None:
                truncated = (ep_len >= self.time_limit.cap) & ~done
                stop_value = self.time_limit.stop_value(params, env_state)
                reward = reward + jnp.where(truncated, c.gamma * stop_value, 0.0)
                done = done | truncated
            end = world.episode_end(done, info, ep_len)
            finished = (
                end.over,
                end.success,
                jnp.where(end.over, ep_ret, 0.0),
                {name: jnp.where(end.over, x, 0) for name, x in end.sums.items()},
                info["bonus"],
            )
            step = Step(obs, starts, pays, action, log_prob, value, reward, done, extra)
            next_obs, env_state = world.restart(k_restart, env_state, done, slots, slot_of_env)
            ep_ret = jnp.where(done, 0.0, ep_ret)
            ep_len = jnp.where(done, 0, ep_len)
            return (env_state, next_obs, done, hidden, ep_ret, ep_len, rng), (step, finished)

        carry = (env_state, obs, starts, first_hidden, ep_ret, ep_len, rng)
        carry, (traj, finished) = jax.lax.scan(env_step, carry, None, c.num_steps)
        env_state, obs, starts, hidden, ep_ret, ep_len, rng = carry
        last_value = policy.last_value(params, hidden, obs, starts, pays)
        advantages, targets = gae(traj, last_value, c.gamma, c.gae_lambda)

        def update(rng: jax.Array) -> tuple[TrainState, jax.Array, dict[str, jax.Array]]:
            return self._update(runner.train, first_hidden, traj, advantages, targets, rng)

        def measure_only(rng: jax.Array) -> tuple[TrainState, jax.Array, dict[str, jax.Array]]:
            zero = jnp.zeros((), jnp.float32)
            return runner.train, rng, dict.fromkeys(LOSSES, zero)

        if isinstance(learn, bool):  # a Python flag picks the branch while tracing
            train, rng, metrics = (update if learn else measure_only)(rng)
        else:  # data: a cond, not a multiply by zero, so Adam's moments and count stay put
            train, rng, metrics = jax.lax.cond(learn, update, measure_only, rng)

        over_f, success_f, return_f, sums_f, bonus_f = finished
        metrics["bonus_sum"] = bonus_f.sum()
        # Per-env level scores (PLR): the rollout's positive advantages, values, best return.
        metrics["pvl"] = jnp.maximum(advantages, 0.0).mean(axis=0)
        metrics["value_mean"] = traj.value.mean(axis=0)
        metrics["return_max"] = jnp.where(over_f, return_f, -jnp.inf).max(axis=0)
        stats = slot_stats(slot_of_env, c.num_slots, over_f, success_f, return_f, sums_f)
        new_runner = RunnerState(
            train=train,
            env_state=env_state,
            obs=obs,
            starts=starts,
            hidden=hidden,
            rng=rng,
            episode_return=ep_ret,
            episode_length=ep_len,
            iteration=runner.iteration + 1,
        )
        return new_runner, stats, metrics

    def _update(
        self,
        train: TrainState,
        first_hidden: Any,
        traj: Step,
        advantages: jax.Array,
        targets: jax.Array,
        rng: jax.Array,
    ) -> tuple[TrainState, jax.Array, dict[str, jax.Array]]:
        """PPO epochs: minibatches of whole env sequences (recurrent) or of single steps."""
        c, policy = self.config, self.policy

        def loss_fn(params: Any, batch: tuple) -> tuple[jax.Array, dict[str, jax.Array]]:
            envs, step, adv, target = batch
            # The memory may be a pytree (GTrXL): the minibatch gathers its envs' memories.
            hidden = None
            if envs is not None:
                hidden = jax.tree_util.tree_map(lambda x: x[envs], first_hidden)
            logits, value = policy.replay(params, hidden, step)
            return ppo_loss(
                logits, value, step, adv, target, c, policy.clip_value, policy.legal(step.obs)
            )

        def epoch(carry: tuple, _: Any) -> tuple[tuple, dict[str, jax.Array]]:
            train, rng = carry
            rng, k_perm = jax.random.split(rng)
            split = sequence_minibatches if policy.recurrent else step_minibatches
            batches = split(k_perm, (traj, advantages, targets), c.num_minibatches)

            def minibatch(train: TrainState, batch: tuple) -> tuple[TrainState, dict]:
                grads, aux = jax.grad(loss_fn, has_aux=True)(train.params, batch)
                return train.apply_gradients(grads=grads), aux

            train, aux = jax.lax.scan(minibatch, train, batches)
            return (train, rng), aux

        (train, rng), aux = jax.lax.scan(epoch, (train, rng), None, c.update_epochs)
        return train, rng, jax.tree_util.tree_map(jnp.mean, aux)


def step_minibatches(key: jax.Array, data: Any, num_minibatches: int) -> tuple:
    """``(None, *data)`` of ``(T, N, ...)`` arrays as shuffled minibatches of single steps:
    leaves ``(M, T·N / M, ...)`` (no env indices: a feed-forward replay has no memory)."""
    leaves = jax.tree_util.tree_leaves(data)
    batch = leaves[0].shape[0] * leaves[0].shape[1]
    flat = jax.tree_util.tree_map(lambda x: x.reshape((batch, *x.shape[2:])), data)
    perm = jax.random.permutation(key, batch)
    shuffled = jax.tree_util.tree_map(
        lambda x: x[perm].reshape((num_minibatches, batch // num_minibatches, *x.shape[1:])),
        flat,
    )
    return (None, *shuffled)


def sequence_minibatches(key: jax.Array, data: Any, num_minibatches: int) -> tuple:
    """``(envs, *data)`` of ``(T, N, ...)`` arrays as minibatches of whole env sequences,
    shuffled along the envs: leaves ``(M, T, N / M, ...)``; ``envs`` ``(M, N / M)`` holds
    each minibatch's env indices (to gather its memories)."""
    num_envs = jax.tree_util.tree_leaves(data)[0].shape[1]
    perm = jax.random.permutation(key, num_envs)

    def split_envs(x: jax.Array, env_axis: int) -> jax.Array:
        x = jnp.take(x, perm, axis=env_axis)
        lead, rest = x.shape[:env_axis], x.shape[env_axis + 1 :]
        x = x.reshape((*lead, num_minibatches, num_envs // num_minibatches, *rest))
        return jnp.moveaxis(x, env_axis, 0)

    envs = split_envs(jnp.arange(num_envs), 0)
    return (envs, *jax.tree_util.tree_map(lambda x: split_envs(x, 1), data))
