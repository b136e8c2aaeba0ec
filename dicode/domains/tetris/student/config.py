"""Hyperparameters of the PPO student, in one documented dataclass (CleanRL style).

PPO: Schulman et al. 2017, "Proximal Policy Optimization Algorithms" (arXiv:1707.06347);
GAE: Schulman et al. 2016, "High-Dimensional Continuous Control Using Generalized Advantage
Estimation" (arXiv:1506.02438). The single-jit layout follows PureJaxRL (Lu et al. 2022,
"Discovered Policy Optimisation"). Defaults were tuned for learning speed on the 2-core CPU
with training seeds only (see docs/student.md); evaluation seeds were never used for tuning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from dicode.student.layout import SlotLayout


@dataclass(frozen=True)
class PPOConfig(SlotLayout):
    """Everything that shapes the compiled rollout-and-update; frozen so it can key a jit."""

    # --- layout: S level slots x E environments each -------------------------------------
    num_slots: int = 1  # S: level slots; slot 0 holds the target game by convention
    envs_per_slot: int = 64  # E: parallel environments per slot
    pool_size: int = 1  # K: initial states stacked in every slot (a level's reset pool)
    num_steps: int = 32  # T: environment steps (pieces) per env per iteration
    train_piece_cap: int = 2000  # pieces before a training episode is truncated (bootstrapped)

    # --- PPO / GAE -----------------------------------------------------------------------
    gamma: float = 0.999  # discount per piece (a horizon of ~1,000 pieces: survival matters)
    gae_lambda: float = 0.9  # GAE lambda
    learning_rate: float = 3e-3  # Adam step size
    anneal_lr: bool = False  # linearly decay the step size to 0 over num_iterations
    num_iterations: int = 200  # only used by the schedule when anneal_lr is on
    update_epochs: int = 4  # passes over each batch
    num_minibatches: int = 4  # minibatches per epoch
    clip_eps: float = 0.2  # policy ratio clip
    ent_coef: float = 0.001  # entropy bonus weight (the lookahead policy sharpens itself)
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # global gradient-norm clip
    reward_scale: float = 0.02  # rewards are multiplied by this before GAE (values stay O(10))

    # --- network (raw boards in; see networks.py) ---------------------------------------
    column_features: int = 16  # per-column encoder width (shared across columns)
    row_features: int = 8  # per-row encoder width (shared across rows)
    hidden: int = 32  # width of the MLP on top of the encoders
    column_layers: int = 2  # depth of the per-column encoder
    init_beta: float = 10.0  # initial inverse temperature of the lookahead policy (learned)
    lookahead: bool = True  # logits = beta*(line reward + gamma*V(afterstate)); else own head
    # With the lookahead: True = the actor loss trains only beta and the line rewards, V learns
    # from the critic loss alone (policy iteration over V); the update then never backprops
    # through the candidates. False = the actor gradient also flows into V.
    detach_lookahead: bool = True
    # The value reads the level's context (the goal left, the piece mix; zeros on the target
    # game) besides the board, so a goal level's values do not leak into the target game's.
    level_context: bool = True
    # The value also reads the board's classic features (heights, holes, bumpiness,
    # transitions, wells; board_features.py) beside the trunk: learns several times faster.
    board_features: bool = True

    # --- completion bonus on a goal reached (dicode.student.bonus) -----------------------------
    # B = max(ε, min(max(d, k·R̄), R̄)), R̄ the target's running mean return. In the reward's own
    # units (1 per piece + 10·lines²): a target game returns thousands of points, a goal level
    # tens to hundreds, so DiCode's k = 2 would make one short level worth several whole target
    # games; here the bonus is d alone, two single lines' worth (never above R̄; at least ε, one
    # piece's reward). ``bonus_paper`` pays DiCode's uncapped max(d, k·R̄) (with k = 2: an arm).
    bonus_floor: float = 20.0  # d
    bonus_scale: float = 0.0  # k (DiCode: 2.0)
    bonus_least: float = 1.0  # ε
    bonus_paper: bool = False

    seed: int = 0

    @property
    def minibatch_size(self) -> int:
        return self.batch_size // self.num_minibatches

    def annealed_over(self, env_steps: int) -> PPOConfig:
        """This config with the step size decaying linearly to 0 over a known step budget."""
        return replace(
            self, anneal_lr=True, num_iterations=max(1, math.ceil(env_steps / self.batch_size))
        )
