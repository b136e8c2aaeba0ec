"""Hyperparameters of the Craftax student (PPO-RNN or PPO-GTrXL), in one documented dataclass.

The Craftax paper's PPO-RNN baseline (Matthews et al. 2024, "Craftax: A Lightning-Fast
Benchmark for Open-Ended Reinforcement Learning", arXiv:2402.16801) uses 1024 envs x 64
steps, lr 2e-4 (annealed), gamma 0.99, GAE lambda 0.8, 4 epochs x 8 minibatches, clip 0.2,
entropy 0.01, value 0.5, grad-norm 1.0 and 512-wide layers. Scaled here to a 2-core CPU:
64 envs, 4 minibatches (16 envs x 64 steps each) and 256-wide layers; the rest unchanged.

``student="gtrxl"`` swaps the GRU for a gated Transformer-XL (Parisotto et al. 2020,
arXiv:1910.06764), DiCode's student. DiCode's public configuration (in brackets below) has
embedding 256, 8 heads, 2 layers, memory 128, gate bias 2; the transformer is narrowed here
for the CPU. DiCode also trains it with 128 steps per env, gamma 0.999, entropy 0.002 and lr
2e-4 -> 2e-6; the PPO settings here stay the same for both students (set them with ``--set``).
"""

from __future__ import annotations

from dataclasses import dataclass

from dicode.student.layout import SlotLayout

# Evaluation protocol defaults (``evaluate.py``): games, step cap per game, key.
EVAL_ENVS = 64
EVAL_MAX_STEPS = 10_000
EVAL_SEED = 0

# The memories a student can have (``networks.make_network``).
STUDENTS = ("rnn", "gtrxl")


@dataclass(frozen=True)
class CraftaxPPOConfig(SlotLayout):
    """Everything that shapes the compiled rollout-and-update; frozen so it can key a jit."""

    # --- layout: S level slots x E environments each -------------------------------------
    num_slots: int = 1  # S: level slots; target-only training uses one (the target game)
    envs_per_slot: int = 64  # E: parallel environments per slot (paper: 1024 in total)
    pool_size: int = 256  # K: worlds per slot pool (the target's pool is refreshed, below)
    target_refresh: int = 8  # new Craftax worlds written into target pools per iteration
    num_steps: int = 64  # T: steps per env per iteration (paper: 64)

    # --- PPO / GAE (paper values unless noted) ------------------------------------------
    gamma: float = 0.99  # discount per step
    gae_lambda: float = 0.8  # GAE lambda
    learning_rate: float = 2e-4  # Adam step size
    anneal_lr: bool = True  # linearly decay the step size to 0 over num_iterations
    num_iterations: int = 1000  # schedule length; the CLI sets it from --steps
    update_epochs: int = 4  # passes over each batch
    num_minibatches: int = 4  # minibatches per epoch, split along envs (paper: 8)
    clip_eps: float = 0.2  # policy ratio clip (also the value clip)
    ent_coef: float = 0.01  # entropy bonus weight
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 1.0  # global gradient-norm clip

    # --- network: obs -> dense -> memory (GRU or GTrXL) -> actor / critic heads ---------
    student: str = "rnn"  # the memory: "rnn" (GRU, PPO-RNN) or "gtrxl" (PPO-GTrXL, DiCode's)
    layer_size: int = 256  # heads' width; "rnn": also the embedding's and GRU's (paper: 512)
    # GTrXL (student="gtrxl"), DiCode's values in brackets:
    gtrxl_embed: int = 128  # D: embedding and transformer width, attention q/k/v included [256]
    gtrxl_heads: int = 4  # attention heads (D / heads features each) [8]
    gtrxl_layers: int = 2  # transformer layers [2]
    gtrxl_memory: int = 64  # M: past steps of the episode each step attends to, per layer [128]
    gtrxl_gate_bias: float = 2.0  # b_g: the update gate starts at sigmoid(-b_g), near identity [2]

    seed: int = 0

    def __post_init__(self) -> None:
        if self.envs_per_slot * self.num_slots % self.num_minibatches:
            raise ValueError("num_envs must be divisible by num_minibatches (split along envs)")
        if not 0 <= self.target_refresh <= self.pool_size:
            raise ValueError("target_refresh must be in [0, pool_size]")
        if self.student not in STUDENTS:
            raise ValueError(f"student must be one of {', '.join(STUDENTS)}, not {self.student!r}")
        if self.gtrxl_embed % self.gtrxl_heads:
            raise ValueError("gtrxl_embed must be divisible by gtrxl_heads")
