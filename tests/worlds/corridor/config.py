"""The corridor student's settings, in one frozen dataclass; no JAX here, so reading a stored
run's configuration back (``Domain.ppo_config``) stays cheap."""

from __future__ import annotations

from dataclasses import dataclass

from dicode.student.layout import SlotLayout


@dataclass(frozen=True)
class CorridorConfig(SlotLayout):
    """The compiled student's settings (frozen: it keys the compile cache)."""

    num_slots: int = 2  # S: the target game and one level
    envs_per_slot: int = 8  # E
    # K: instances per slot. The target's 64 corridors (of 240 start/goal pairs) generalise:
    # `dicode train --steps 60000` solves 0.84 of the protocol's corridors; with 8 the student
    # learned its 8 by heart (return 1.0) and solved 0.44.
    pool_size: int = 64
    num_steps: int = 32  # T: steps per env per iteration
    gamma: float = 0.95
    gae_lambda: float = 0.9
    learning_rate: float = 3e-3
    anneal_lr: bool = False
    num_iterations: int = 100  # the schedule's length when annealing
    update_epochs: int = 2
    num_minibatches: int = 2
    clip_eps: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden_size: int = 32
    seed: int = 0
