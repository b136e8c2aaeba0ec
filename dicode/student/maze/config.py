"""Hyperparameters of the maze PPO-RNN student, in one documented dataclass (CleanRL style).

After the maze students of the curriculum literature (jaxued / minimax: PPO with a recurrent
core over the 5×5 view, γ = 0.995, λ = 0.98, clip 0.2, grad-norm 0.5), scaled to a 2-core CPU:
64 envs × 128 steps per iteration, a 64-wide MLP embedding and a 128-wide GRU instead of a
conv + 256-wide LSTM, a larger step size (3e-4) and entropy bonus (0.01) so that ~1M steps
show learning.
"""

from __future__ import annotations

from dataclasses import dataclass

from dicode.student.layout import SlotLayout

# Evaluation protocol defaults (``evaluate.py``): episodes per held-out maze, DR mazes, key.
EVAL_EPISODES = 10
EVAL_DR_MAZES = 50
EVAL_SEED = 0


@dataclass(frozen=True)
class MazePPOConfig(SlotLayout):
    """Everything that shapes the compiled rollout-and-update; frozen so it can key a jit."""

    # --- layout: S level slots x E environments each -------------------------------------
    num_slots: int = 1  # S: level slots; target-only (DR) training uses one
    envs_per_slot: int = 64  # E: parallel environments per slot
    pool_size: int = 64  # K: layouts per slot pool (levels' pools are cycled or cut to K)
    target_refresh: int = 8  # new DR mazes written into target pools per iteration
    num_steps: int = 128  # T: steps per env per iteration

    # --- PPO / GAE ------------------------------------------------------------------------
    gamma: float = 0.995  # discount per step
    gae_lambda: float = 0.98  # GAE lambda
    learning_rate: float = 3e-4  # Adam step size
    anneal_lr: bool = False  # linearly decay the step size to 0 over num_iterations
    num_iterations: int = 1000  # schedule length when annealing
    update_epochs: int = 4  # passes over each batch
    num_minibatches: int = 4  # minibatches per epoch, split along envs (whole sequences)
    clip_eps: float = 0.2  # policy ratio clip (also the value clip)
    ent_coef: float = 0.01  # entropy bonus weight
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # global gradient-norm clip

    # --- network: view -> MLP -> GRU -> actor / critic heads ------------------------------
    embed_size: int = 64  # width of the two embedding layers
    hidden_size: int = 128  # GRU state and head width

    seed: int = 0

    def __post_init__(self) -> None:
        if self.num_envs % self.num_minibatches:
            raise ValueError("num_envs must be divisible by num_minibatches (split along envs)")
        if not 0 <= self.target_refresh <= self.pool_size:
            raise ValueError("target_refresh must be in [0, pool_size]")
        if min(self.num_slots, self.envs_per_slot, self.pool_size, self.num_steps) < 1:
            raise ValueError("num_slots, envs_per_slot, pool_size and num_steps must be >= 1")
