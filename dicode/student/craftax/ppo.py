"""PPO-RNN / PPO-GTrXL over Craftax level slots: one jitted rollout-and-update (PureJaxRL
layout).

Papers: PPO (Schulman et al. 2017, arXiv:1707.06347), GAE (Schulman et al. 2016,
arXiv:1506.02438), PureJaxRL (Lu et al. 2022), the Craftax paper's PPO-RNN baseline (Matthews
et al. 2024), GTrXL (Parisotto et al. 2020, arXiv:1910.06764). The memory — a GRU state or the
GTrXL's window of past step embeddings — is whatever ``networks.make_network`` gives; the rollout
carries it step by step, the update replays whole sequences from the rollout's first memory.
Environment: ``dicode.domains.craftax.engine`` (one env, ``dicode.environment``'s interface:
rule multipliers, goals; a goal level goes on as an ordinary game after its goal) wrapped with
the completion bonus (``dicode.student.bonus``, ``CRAFTAX_BONUS``; ``R̄``, the target's running
mean return, an argument — data — of every iteration) and stepped over S slots x E envs by
``level_slots`` (finished envs restart from their slot's pool). Per-level statistics
count a level's attempt at its goal (ended by the success, or by the episode's end without one).

Observation: Craftax's symbolic observation ++ the slot's goal multi-hot (8335 floats).
Swapping levels means passing other slot arrays (same shapes) plus ``slot_reset`` flags; it
never recompiles (``Trainer.trace_count`` counts traces).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import optax
from craftax.craftax.craftax_state import EnvState
from flax.training.train_state import TrainState

from dicode.domains.craftax import engine, level_slots
from dicode.domains.craftax.engine import CraftaxParams
from dicode.student.bonus import BonusConfig, BonusParams, CompletionBonus
from dicode.student.craftax.config import CraftaxPPOConfig
from dicode.student.craftax.networks import apply_policy, make_network
from dicode.student.gae import gae
from dicode.student.recurrent import sequence_update
from dicode.student.tally import SlotStats, env_slots, slot_stats

#: The completion bonus in Craftax's units (``dicode.student.bonus``): the paper's d = 20,
#: k = 2, capped at the target's running mean return (≈ 4.5 at 1M steps, against the paper's
#: 20 or more), at least ε = 0.1 (a tenth of the least achievement: one health point's reward).
CRAFTAX_BONUS = BonusConfig(floor=20.0, scale=2.0, least=0.1)
_ENV = CompletionBonus(engine, CRAFTAX_BONUS)


@flax.struct.dataclass
class RunnerState:
    """Everything the update carries from one iteration to the next."""

    train: TrainState
    env: EnvState  # N envs (leading axis); env i plays slot ``env_slots(S, E)[i]``
    obs: jnp.ndarray  # (N, OBS_SIZE) current observations
    starts: jnp.ndarray  # (N,) bool: the current observation begins an episode (memory reset)
    hidden: Any  # the memory: (N, H) GRU state, or a GTrXL ``Memory`` (leading axis N)
    rng: jnp.ndarray
    episode_return: jnp.ndarray  # (N,) Craftax reward so far in the running episode (no bonus)
    episode_length: jnp.ndarray  # (N,) steps so far in the running episode
    iteration: jnp.ndarray  # () int32


class _Step(flax.struct.PyTreeNode):
    obs: jnp.ndarray
    start: jnp.ndarray  # the memory resets before reading this observation
    action: jnp.ndarray
    log_prob: jnp.ndarray
    value: jnp.ndarray
    reward: jnp.ndarray  # Craftax reward + completion bonus
    done: jnp.ndarray  # the episode ended with this step


@dataclass
class Trainer:
    """A compiled PPO-RNN or PPO-GTrXL student for one configuration.

    ``init(seed, slots)`` builds the first :class:`RunnerState`; ``iterate(runner, slots,
    slot_reset, r_prev)`` runs ``num_steps`` steps in every env and the PPO update and returns
    ``(runner, SlotStats, metrics)``; ``restart(runner, slots)`` starts every env afresh with a
    fresh memory (used after loading a checkpoint).
    """

    config: CraftaxPPOConfig
    trace_count: int = 0

    def __post_init__(self) -> None:
        self.network = make_network(self.config, engine.NUM_ACTIONS)
        self.iterate = jax.jit(self._iterate)
        self._reset = jax.jit(level_slots.reset)

    def _optimizer(self) -> optax.GradientTransformation:
        c = self.config
        lr: float | optax.Schedule = c.learning_rate
        if c.anneal_lr:
            updates = c.num_iterations * c.update_epochs * c.num_minibatches
            lr = optax.linear_schedule(c.learning_rate, 0.0, updates)
        return optax.chain(optax.clip_by_global_norm(c.max_grad_norm), optax.adam(lr, eps=1e-5))

    def init(self, seed: int, slots: CraftaxParams) -> RunnerState:
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
        params = self.network.init(key, self.network.initial_hidden(n), obs, jnp.ones((1, n), bool))
        train = TrainState.create(apply_fn=self.network.apply, params=params, tx=self._optimizer())
        # A strongly typed step (not Python's 0) is what a checkpoint restores: same compile.
        return replace(train, step=jnp.zeros((), jnp.int32))

    def restart(self, runner: RunnerState, slots: CraftaxParams) -> RunnerState:
        """Every env starts a new episode on its slot; memories and episode sums are zeroed."""
        rng, fields = self._start_envs(runner.rng, slots)
        return jax.device_put(replace(runner, rng=rng, **fields), jax.devices()[0])

    def _start_envs(self, rng: jax.Array, slots: CraftaxParams) -> tuple[jax.Array, dict[str, Any]]:
        rng, k_reset = jax.random.split(rng)
        c = self.config
        obs, env = self._reset(k_reset, slots, env_slots(c.num_slots, c.envs_per_slot))
        n = self.config.num_envs
        return rng, {
            "env": env,
            "obs": obs,
            "starts": jnp.ones((n,), bool),
            "hidden": self.network.initial_hidden(n),
            "episode_return": jnp.zeros((n,), jnp.float32),
            "episode_length": jnp.zeros((n,), jnp.int32),
        }

    # ------------------------------------------------------------------------------------
    def _iterate(
        self,
        runner: RunnerState,
        slots: CraftaxParams,
        slot_reset: jnp.ndarray,
        r_prev: jnp.ndarray,
    ) -> tuple[RunnerState, SlotStats, dict[str, jnp.ndarray]]:
        self.trace_count += 1  # runs only while tracing: counts compilations
        c = self.config
        slot_of_env = env_slots(c.num_slots, c.envs_per_slot)
        n = c.num_envs
        pays = jnp.ones((n,), bool)  # every slot pays (the target game has no goal to complete)

        def with_bonus(levels: CraftaxParams) -> BonusParams[CraftaxParams]:
            return BonusParams(levels, jnp.full((n,), r_prev), pays)

        # Envs whose slot received a new level start over on it: their first observation starts
        # an episode, so the memory resets (GRU zeroed, GTrXL's past hidden) as after a done.
        rng, k_reset = jax.random.split(runner.rng)
        renew = slot_reset[slot_of_env]
        obs, env_state = level_slots.restart(k_reset, runner.env, renew, slots, slot_of_env)
        starts = runner.starts | renew
        ep_ret = jnp.where(renew, 0.0, runner.episode_return)
        ep_len = jnp.where(renew, 0, runner.episode_length)
        params = runner.train.params
        first_hidden = runner.hidden

        def env_step(carry: tuple, _: Any) -> tuple[tuple, tuple[_Step, tuple]]:
            env_state, obs, starts, hidden, ep_ret, ep_len, rng = carry
            rng, k_act, k_step = jax.random.split(rng, 3)
            net = self.network
            hidden, logits, value = apply_policy(net, params, hidden, obs[None], starts[None])
            logits, value = logits[0], value[0]
            action = jax.random.categorical(k_act, logits)
            log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], 1)[:, 0]
            next_obs, env_state, reward, done, info = level_slots.step(
                k_step, env_state, action, slots, slot_of_env, _ENV, with_bonus
            )
            ep_ret = ep_ret + info["engine_reward"]
            ep_len = ep_len + 1
            over = info["attempt_over"]  # a level's figures: up to its goal, or the end
            finished = (
                over,
                info["success"],
                jnp.where(over, ep_ret, 0.0),
                jnp.where(over, ep_len, 0),
                info["bonus"],
            )
            step = _Step(obs, starts, action, log_prob, value, reward, done)
            ep_ret = jnp.where(done, 0.0, ep_ret)
            ep_len = jnp.where(done, 0, ep_len)
            return (env_state, next_obs, done, hidden, ep_ret, ep_len, rng), (step, finished)

        carry = (env_state, obs, starts, first_hidden, ep_ret, ep_len, rng)
        carry, (traj, finished) = jax.lax.scan(env_step, carry, None, c.num_steps)
        env_state, obs, starts, hidden, ep_ret, ep_len, rng = carry
        _, _, last_value = apply_policy(self.network, params, hidden, obs[None], starts[None])
        advantages, targets = gae(traj, last_value[0], c.gamma, c.gae_lambda)
        train, rng, losses = self._update(
            runner.train, first_hidden, traj, advantages, targets, rng
        )

        done_f, success_f, return_f, length_f, bonus_f = finished
        losses["bonus_sum"] = bonus_f.sum()
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
            episode_length=ep_len,
            iteration=runner.iteration + 1,
        )
        return new_runner, stats, losses

    def _update(
        self,
        train: TrainState,
        first_hidden: Any,
        traj: _Step,
        advantages: jnp.ndarray,
        targets: jnp.ndarray,
        rng: jnp.ndarray,
    ) -> tuple[TrainState, jnp.ndarray, dict[str, jnp.ndarray]]:
        """PPO epochs over whole env sequences (``dicode.student.recurrent``).

        ``sequence_update`` splits one array along the envs into minibatches; the memory may be
        a pytree (GTrXL), so it splits the env indices and each replay gathers its envs' memory.
        """

        def replay(params: Any, envs: jnp.ndarray, step: Any) -> tuple[jnp.ndarray, jnp.ndarray]:
            hidden = jax.tree_util.tree_map(lambda x: x[envs], first_hidden)
            _, logits, value = apply_policy(self.network, params, hidden, step.obs, step.start)
            return logits, value

        envs = jnp.arange(self.config.num_envs)
        return sequence_update(train, envs, traj, advantages, targets, rng, self.config, replay)
