"""Hyperparameters of the maze PPO-RNN student, in one documented dataclass (CleanRL style).

After the maze students of the curriculum literature (jaxued / minimax: PPO with a recurrent
core over the 5×5 view, γ = 0.995, λ = 0.98, clip 0.2, grad-norm 0.5), scaled to a 2-core CPU:
64 envs × 128 steps per iteration, a 64-wide MLP embedding and a 128-wide GRU instead of a
conv + 256-wide LSTM, a larger step size (3e-4) and entropy bonus (0.01) so that ~1M steps
show learning.

Two settings choose the world around the student (defaults: the existing protocol): ``target``,
the target game's maze family (``"dr"``: 25 random walls; ``"long_paths"``: perfect mazes with
start and goal ≥ 60 moves apart, the sparse target) and ``heldout``, the evaluation set
(``"ours"``: our 12 mazes; ``"jaxued"``: JaxUED's eight named mazes; ``"long_paths"``).
:class:`UEDConfig` holds the literature's curricula (DR, robust PLR, ACCEL) run by
``dicode.domains.maze.student.ued``; ``JAXUED_LAYOUT`` is their student layout (32 envs × 256 steps,
one level per env, as JaxUED's ``maze_plr.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

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

    # --- the world around the student -------------------------------------------------------
    target: str = "dr"  # the target game's maze family (dicode.domains.maze.generate)
    heldout: str = "ours"  # the evaluation set (dicode.domains.maze.heldout.HELD_OUT_SETS)

    seed: int = 0

    def annealed_over(self, env_steps: int) -> MazePPOConfig:
        """This config with its step size annealed to 0 over ``env_steps`` env steps."""
        return replace(self, anneal_lr=True, num_iterations=-(-env_steps // self.batch_size))

    def __post_init__(self) -> None:
        if self.num_envs % self.num_minibatches:
            raise ValueError("num_envs must be divisible by num_minibatches (split along envs)")
        if not 0 <= self.target_refresh <= self.pool_size:
            raise ValueError("target_refresh must be in [0, pool_size]")
        if min(self.num_slots, self.envs_per_slot, self.pool_size, self.num_steps) < 1:
            raise ValueError("num_slots, envs_per_slot, pool_size and num_steps must be >= 1")
        if self.target not in ("dr", "long_paths"):
            raise ValueError(f"target must be 'dr' or 'long_paths', got {self.target!r}")
        if self.heldout not in ("ours", "jaxued", "long_paths"):
            raise ValueError(f"heldout must be ours, jaxued or long_paths, got {self.heldout!r}")


#: One level per env, 32 envs × 256 steps per iteration (JaxUED's ``maze_plr.py`` batch); our
#: network and PPO step sizes (JaxUED's lr 1e-4 and entropy 1e-3 are tuned for 30k updates).
JAXUED_LAYOUT = MazePPOConfig(
    num_slots=32, envs_per_slot=1, pool_size=1, target_refresh=0, num_steps=256,
    num_minibatches=1, update_epochs=5, heldout="jaxued",
)  # fmt: skip


@dataclass(frozen=True)
class UEDConfig:
    """A curriculum of the literature over the maze (``dicode.domains.maze.student.ued``), JaxUED's
    defaults (``examples/maze_plr.py``): every iteration plays one batch of levels, one per env.

    ``method``: ``"dr"`` — fresh random levels every iteration, trained on; ``"robust_plr"`` —
    PLR⊥: with probability ``replay_prob`` (once the buffer is ``min_fill`` full) replay levels
    drawn from the buffer by score rank (temperature) mixed with staleness and train on them,
    otherwise roll out fresh random levels WITHOUT a gradient step and only score them for the
    buffer; ``"accel"`` — robust PLR, and after every replay iteration the replayed levels
    edited ``num_edits`` times, rolled out without a gradient step and scored for the buffer.
    """

    method: str = "robust_plr"
    score: str = "maxmc"  # "maxmc" (max return seen − value) or "pvl" (positive value loss)
    replay_prob: float = 0.8
    staleness_coef: float = 0.3
    temperature: float = 0.3
    capacity: int = 4000  # levels in the buffer
    min_fill: float = 0.5  # replay starts once the buffer is this full
    num_edits: int = 5  # ACCEL's edits per child level
    new_levels: str = "dr"  # the random levels' family (``generate.target_pool``)

    def __post_init__(self) -> None:
        if self.method not in ("dr", "robust_plr", "accel"):
            raise ValueError(f"method must be dr, robust_plr or accel, got {self.method!r}")
        if self.score not in ("maxmc", "pvl"):
            raise ValueError(f"score must be maxmc or pvl, got {self.score!r}")
        if not 0.0 <= self.replay_prob <= 1.0 or not 0.0 <= self.min_fill <= 1.0:
            raise ValueError("replay_prob and min_fill must be in [0, 1]")
        if self.capacity < 1 or self.num_edits < 0:
            raise ValueError("capacity must be >= 1 and num_edits >= 0")


@dataclass(frozen=True)
class ReverseConfig:
    """The hand-written reverse curriculum (``dicode.domains.maze.student.reverse``): the
    target family's mazes with the start ``distance`` moves from the goal, the distance
    stepped up once the rung's episodes succeed often enough (Florensa et al. 2017)."""

    family: str = "long_paths"  # the target's maze family (``device_mazes.FAMILIES``)
    first_distance: int = 2
    step: int = 2  # moves added per rung
    step_above: float = 0.7  # success rate over the rung's episodes that moves it
    min_episodes: int = 64  # finished episodes a rung is judged on

    def __post_init__(self) -> None:
        if self.first_distance < 1 or self.step < 1 or self.min_episodes < 1:
            raise ValueError("first_distance, step and min_episodes must be >= 1")
        if not 0.0 < self.step_above < 1.0:
            raise ValueError(f"step_above must be in (0, 1), got {self.step_above}")
