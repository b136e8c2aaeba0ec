"""The Craftax student as a :class:`~dicode.student.loop.SlotTrainer`: PPO-RNN or PPO-GTrXL
over the pool engine's S slots, the paper's evaluation on the real game, checkpoints of the
learning state.

Placing a level writes its bundle into one slot of the engine's arrays (jitted, same shapes:
nothing recompiles). Before each iteration ``target_refresh`` new Craftax worlds enter the
pools of the slots that play the target game, so the target stays close to Craftax's
fresh-world-per-episode game. A checkpoint keeps parameters, optimiser state, RNG key,
iteration and the target pool's world counter, not the environments: a resumed student
restarts every env (and its memory) on the target game.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np
from flax.training.train_state import TrainState

from dicode.domains.craftax import level_slots
from dicode.domains.craftax.bundle import CraftaxBundle
from dicode.domains.craftax.state_codec import arrays_to_state
from dicode.domains.craftax.student.config import EVAL_ENVS, EVAL_MAX_STEPS, CraftaxPPOConfig
from dicode.domains.craftax.student.evaluate import CraftaxEvaluator, EvalResult
from dicode.domains.craftax.student.slot_world import Trainer
from dicode.domains.craftax.student.target_pool import TargetPool
from dicode.student.checkpoint import load_checkpoint, save_checkpoint
from dicode.student.layout import LayoutTrainer
from dicode.student.ppo import LOSSES, RunnerState
from dicode.student.tally import EpisodeTally, slot_tallies


@flax.struct.dataclass
class LearningState:
    """What a Craftax checkpoint keeps."""

    train: TrainState
    rng: jnp.ndarray
    iteration: jnp.ndarray


def protocol_figures(result: EvalResult) -> dict[str, Any]:
    """The paper's headline figures of an evaluation, % of max first, then the skill profile
    under ``"skills"``: each achievement's share of games that unlocked it."""
    return {
        "percent_of_max": result.percent_of_max,
        "mean_return": result.mean_return,
        "std_return": result.std_return,
        "mean_length": float(result.lengths.mean()),
        "skills": result.success_rates,
    }


class CraftaxSlotTrainer(LayoutTrainer):
    """See the module docstring; ``pool`` arguments are :class:`CraftaxBundle` levels."""

    config: CraftaxPPOConfig

    def __init__(
        self,
        config: CraftaxPPOConfig,
        eval_envs: int = EVAL_ENVS,
        eval_max_steps: int = EVAL_MAX_STEPS,
    ) -> None:
        self.config = config
        self.eval_envs, self.eval_max_steps = eval_envs, eval_max_steps
        self.ppo = Trainer(config)
        self.target = TargetPool(config.seed, config.pool_size)
        self.on_target = [True] * config.num_slots
        self.slots = level_slots.make_slots(
            [self.target.bundle()] * config.num_slots, config.pool_size
        )
        self.runner: RunnerState = self.ppo.init(config.seed, self.slots)
        self.last_losses: dict[str, jax.Array] = {}  # the last update's, for a run's log
        self._write_slot = jax.jit(level_slots.write_slot)
        self._write_entries = jax.jit(level_slots.write_pool_entries)
        self._evaluator: CraftaxEvaluator | None = None

    def place(self, slot: int, pool: CraftaxBundle | None) -> None:
        chosen = self.target.bundle() if pool is None else pool
        one = level_slots.bundle_to_slot(chosen, self.config.pool_size)
        self.slots = self._write_slot(self.slots, jnp.int32(slot), one)
        self.on_target[slot] = pool is None

    def iterate(self, slot_reset: np.ndarray, r_prev: float) -> list[EpisodeTally]:
        self._refresh_target()
        self.runner, stats, metrics = self.ppo.iterate(
            self.runner, self.slots, jnp.asarray(slot_reset), jnp.float32(r_prev)
        )
        self.last_losses = {name: metrics[name] for name in LOSSES}
        return slot_tallies(stats)

    def _refresh_target(self) -> None:
        count = self.config.target_refresh
        target_slots = [s for s, on in enumerate(self.on_target) if on]
        if count == 0 or not target_slots:
            return
        positions, worlds = self.target.refresh(count)
        states = arrays_to_state(worlds, batch_dims=1)
        for s in target_slots:
            self.slots = self._write_entries(
                self.slots, jnp.int32(s), jnp.asarray(positions), states
            )

    def evaluate_result(self) -> EvalResult:
        """The paper's protocol on the real Craftax game (``evaluate.py``)."""
        if self._evaluator is None:
            self._evaluator = CraftaxEvaluator(
                self.ppo.network, self.eval_envs, self.eval_max_steps
            )
        return self._evaluator(self.runner.train.params)

    def evaluate(self) -> dict[str, Any]:
        return protocol_figures(self.evaluate_result())

    def save(self, path: Path, extra: dict[str, Any]) -> None:
        r = self.runner
        state = LearningState(train=r.train, rng=r.rng, iteration=r.iteration)
        save_checkpoint(path, state, extra | {"worlds_generated": self.target.generated})

    def load(self, path: Path) -> dict[str, Any]:
        """Learning state from ``path``; every slot back on the target game, the target pool
        rebuilt, every env and its memory restarted."""
        r = self.runner
        template = LearningState(train=r.train, rng=r.rng, iteration=r.iteration)
        state, extra = load_checkpoint(path, template)
        self.target = TargetPool(self.config.seed, self.config.pool_size, extra["worlds_generated"])
        self.on_target = [True] * self.config.num_slots
        self.slots = level_slots.make_slots(
            [self.target.bundle()] * self.config.num_slots, self.config.pool_size
        )
        runner = replace(r, train=state.train, rng=state.rng, iteration=state.iteration)
        self.runner = self.ppo.restart(runner, self.slots)
        return extra


def checkpoint_template(ppo: Trainer, seed: int) -> LearningState:
    """The structure of a checkpoint's learning state (values are overwritten when read)."""
    train = ppo.init_train(jax.random.PRNGKey(seed))
    return LearningState(train=train, rng=jax.random.PRNGKey(0), iteration=jnp.zeros((), jnp.int32))


class CraftaxTargetProtocol:
    """The paper's evaluation on checkpoints of a Craftax student (compiled once)."""

    def __init__(self, config: CraftaxPPOConfig, games: int, max_steps: int) -> None:
        ppo = Trainer(config)
        self.games, self.max_steps = games, max_steps
        self._template = checkpoint_template(ppo, config.seed)
        self._play = CraftaxEvaluator(ppo.network, games, max_steps)

    def read_params(self, checkpoint: Path) -> Any:
        state, _ = load_checkpoint(checkpoint, self._template)
        return state.train.params

    def measure(self, params: Any) -> dict[str, Any]:
        figures = protocol_figures(self._play(params))
        skills = figures.pop("skills")  # the numbers first, the profile last
        return figures | {"games": self.games, "max_steps": self.max_steps, "skills": skills}
