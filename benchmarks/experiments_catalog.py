"""The experiments of ``benchmarks/experiment.py``: what an experiment is (``Experiment``,
``Variant``) and each one's world, budget, seeds and variants.

Every variant of an experiment trains the same student (same network, layout and step-size
schedule) for the same env steps; they differ in what fills the free slots and how levels are
made (``services/curricula.py``). Budgets and schedules are chosen before the tables are run,
from the world's cost on this machine (and, for the Tetris curriculum, from where one
target-only probe nears the piece cap, so the table is not at its ceiling), never to favour
an arm:

- sessions are sized to the budget (``SESSIONS`` per run), so generated levels enter within the
  first few percent of a run (the seed levels drain in a few sessions) instead of after the
  paper's ≈ 26M steps;
- the target share is swept: 0.2 as in the paper, and 0.6;
- ``skill_share`` is the share of generation attempts that teach a frontier skill of the
  target's newest evaluation (0 = DiCode as published);
- the free slots mix new levels and replay as ``CurriculumConfig`` says (at most
  ``new_share`` = 0.5 of them new), so every curriculum arm replays
  (``tests/student/test_catalog_replay.py`` plays each arm's schedule offline);
- a run's figure is the mean of its last three evaluations (``benchmarks/run_figures.py``);
  the Tetris protocol plays 50 games per evaluation (20 before: a standard error of 25–30
  lines per evaluation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from benchmarks.run_figures import Ablation
from dicode.archive.config import ArchiveConfig
from dicode.domains.craftax.student.config import CraftaxPPOConfig
from dicode.domains.maze.student.config import (
    JAXUED_LAYOUT,
    MazePPOConfig,
    ReverseConfig,
    UEDConfig,
)
from dicode.domains.tetris.student.config import PPOConfig
from dicode.settings import EvaluatorSettings, GeneratorSettings, StudentSettings
from dicode.student.curriculum import CurriculumConfig
from services.curricula import MethodConfig

SESSIONS = 100  # sessions per run, whatever the budget


@dataclass(frozen=True)
class Variant:
    """One arm of an experiment: a method of ``services/curricula.py`` and its config."""

    method: str
    config: MethodConfig
    note: str = ""  # what this arm changes, for the table


@dataclass(frozen=True)
class Experiment:
    """A comparison at equal env steps on one world."""

    name: str
    protocol: str  # how the target figures are measured, stated beside the numbers
    steps: int
    seeds: tuple[int, ...]
    baseline: str  # the variant every other one is compared with
    variants: dict[str, Variant] = field(default_factory=dict)
    ablations: tuple[Ablation, ...] = ()  # paired comparisons (same seeds), one part each


def _student(
    ppo: PPOConfig | MazePPOConfig | CraftaxPPOConfig,
    steps: int,
    target_fraction: float = CurriculumConfig.target_fraction,
) -> StudentSettings:
    """``ppo``'s student for a run of ``steps`` env steps in about ``SESSIONS`` sessions, the
    target game on ``target_fraction`` of the slots."""
    curriculum = CurriculumConfig(target_fraction=target_fraction)
    iterations = max(1, math.ceil(steps / ppo.batch_size / SESSIONS))
    return StudentSettings(ppo, curriculum=curriculum, iterations_per_session=iterations)


def _aimed(base: MethodConfig, share: float, floor: float) -> dict[str, Variant]:
    """DiCode with issue 39's three mechanisms and each one's ablation (``base``: the DiCode
    arm they build on): (1) half the attempts aimed at the target — target-derived parents,
    then the newest measured rung of their lines — with every parent on the ladder around
    p = 0.5 (``GeneratorSettings.target_aim``), (2) admission and replay by transfer to the
    target (``ArchiveConfig.level_score``), (3) a target share that starts at ``share`` and
    follows the target's curve between ``floor`` and 1 (``CurriculumConfig.share_rule``).
    Item 3's ablation keeps the base arm's share (fixed, or its schedule). All four hold
    generation back while a level awaits training (``back_pressure``, ``max_untrained`` 1): a
    ladder steps on what the student does now, and a queue of levels written for an earlier
    student (in the first maze runs: half the levels never trained, the rest trained a mean 37
    sessions after they were written) would cut that loop."""
    aim = replace(base.generator, target_aim=0.5, max_untrained=1)
    transfer = replace(base.archive, level_score="transfer")
    mix = replace(
        base.student.curriculum, target_fraction=floor, target_fraction_start=share,
        share_rule="follow",
    )  # fmt: skip

    def arm(generator: GeneratorSettings, archive: ArchiveConfig, curriculum: Any) -> MethodConfig:
        student = replace(base.student, curriculum=curriculum)
        return replace(
            base, generator=generator, archive=archive, student=student, back_pressure=True
        )

    return {
        "dicode_aimed": Variant(
            "dicode", arm(aim, transfer, mix),
            "DiCode aimed at the target: target-derived parents and the ladder, transfer "
            "scores, a target share that follows the student",
        ),
        "dicode_aimed_no_aim": Variant(
            "dicode", arm(replace(aim, target_aim=0.0), transfer, mix),
            "as dicode_aimed, without target-derived parents or the ladder",
        ),
        "dicode_aimed_no_transfer": Variant(
            "dicode", arm(aim, base.archive, mix),
            "as dicode_aimed, admission and replay by learnability p(1−p) alone",
        ),
        "dicode_aimed_base_share": Variant(
            "dicode", arm(aim, transfer, base.student.curriculum),
            "as dicode_aimed, the base arm's target share",
        ),
    }  # fmt: skip


def _aimed_ablations() -> tuple[Ablation, ...]:
    return (
        Ablation("target-derived parents and the ladder", "dicode_aimed", "dicode_aimed_no_aim"),
        Ablation("transfer scores", "dicode_aimed", "dicode_aimed_no_transfer"),
        Ablation("a target share that follows the student", "dicode_aimed",
                 "dicode_aimed_base_share"),
    )  # fmt: skip


def _variants(base: MethodConfig, shares: dict[str, float]) -> dict[str, Variant]:
    """The arms every experiment has: the target-only baseline, DiCode as published, and
    DiCode with skills at each target share of ``shares``."""
    student = base.student
    as_published = replace(base.generator, skill_share=0.0)
    arms = {
        "target": Variant("target", base, "target-only PPO (every slot on the target game)"),
        "dicode": Variant(
            "dicode", replace(base, generator=as_published), "DiCode as published (no skills)"
        ),
    }
    for name, share in shares.items():
        mix = replace(student.curriculum, target_fraction=share)
        arms[name] = Variant(
            "dicode",
            replace(base, student=replace(student, curriculum=mix)),
            f"DiCode with the skill instruction, target share {share:g}",
        )
    return arms


# --- Tetris ------------------------------------------------------------------------------------
# 1M steps, not the 1.5M of earlier tables: with the board features the target-only student
# nears the 1,000-piece cap (≤ 400 lines) by 1.5M steps, where no curriculum could show a gain.
TETRIS_STEPS = 1_000_000
TETRIS_GAMES = 50
_TETRIS_PPO = PPOConfig(num_slots=5, envs_per_slot=13, pool_size=8).annealed_over(TETRIS_STEPS)
_TETRIS = MethodConfig(
    domain="tetris",
    student=_student(_TETRIS_PPO, TETRIS_STEPS),
    # 50 games: the per-game spread (100–140 lines) over 20 games left 25–30 lines of standard
    # error per evaluation. Cost, from the 20-game records: a curriculum run spent a median 48 s
    # outside training (11 evaluations, compiles, setup), so 2.5× the games adds ≤ 72 s to a
    # ≈ 450 s run; a target run (8 evaluations, 44 s) ≤ 66 s to ≈ 2,600 s.
    evaluator=EvaluatorSettings(games=TETRIS_GAMES, max_steps=1_000),
    # DiCode keeps 100 active levels for 15 level slots; the same ratio for our 4 is 27.
    archive=ArchiveConfig(active_capacity=27),
    levels_per_session=2,
    eval_points=10,  # each evaluation also refreshes the profile the teacher reads
)
_TETRIS_ARMS = _variants(
    _TETRIS,
    {"dicode_skills": 0.2, "dicode_skills_share60": 0.6, "dicode_skills_share80": 0.8},
)
_SKILLED = _TETRIS_ARMS["dicode_skills"].config
_SHARE60 = _TETRIS_ARMS["dicode_skills_share60"].config
_TETRIS_ABLATIONS = {
    "dicode_skills_no_context": Variant(
        "dicode",
        replace(
            _SKILLED,
            student=replace(_SKILLED.student, ppo=replace(_TETRIS_PPO, level_context=False)),
        ),
        "as dicode_skills, the value without the level's context",
    ),
    "dicode_skills_paper_bonus": Variant(
        "dicode",
        replace(
            _SKILLED,
            student=replace(
                _SKILLED.student, ppo=replace(_TETRIS_PPO, bonus_scale=2.0, bonus_paper=True)
            ),
        ),
        "as dicode_skills, DiCode's uncapped bonus max(20, 2·R̄)",
    ),
    # The schedule: 10 sessions instead of 100, the same 200 attempts in bursts of 20, so new
    # levels arrive after 10 % of the budget and the profile the teacher reads is refreshed
    # 10 times less often.
    "dicode_skills_sessions10": Variant(
        "dicode",
        replace(
            _SKILLED,
            student=replace(
                _SKILLED.student,
                iterations_per_session=_SKILLED.student.iterations_per_session * 10,
            ),
            levels_per_session=_SKILLED.levels_per_session * 10,
        ),
        "as dicode_skills, 10 sessions of 20 attempts (levels arrive after 10 % of the budget)",
    ),
    # Survival first: the skill instruction always teaches the first frontier skill, which is
    # the first survival mark the target student misses while there is one (the target game
    # rewards surviving 1,000 pieces; multi-line clears were picked as often before).
    "dicode_skills_share60_survival": Variant(
        "dicode",
        replace(_SHARE60, generator=replace(_SHARE60.generator, skill_choices=1)),
        "as dicode_skills_share60, the skill instruction on the first frontier skill only",
    ),
}

# Each one part of an arm against the arm without it, paired by training seed.
_TETRIS_ABLATION_PAIRS = (
    Ablation(
        "value input: the level's context (goal, piece weights)",
        "dicode_skills",
        "dicode_skills_no_context",
    ),
    Ablation(
        "completion bonus in reward units instead of DiCode's max(20, 2·R_prev)",
        "dicode_skills",
        "dicode_skills_paper_bonus",
    ),
    Ablation("target share 0.2 → 0.6", "dicode_skills_share60", "dicode_skills"),
    Ablation("target share 0.6 → 0.8", "dicode_skills_share80", "dicode_skills_share60"),
    Ablation("skill instruction (vs DiCode as published)", "dicode_skills", "dicode"),
    Ablation(
        "survival first (the instruction on the first frontier skill only)",
        "dicode_skills_share60_survival",
        "dicode_skills_share60",
    ),
    Ablation(
        "schedule: 10 sessions of 20 attempts instead of 100 of 2",
        "dicode_skills_sessions10",
        "dicode_skills",
    ),
)

# The target-only student on its own budget: the most env steps that fit 30 CPU-minutes of
# training with a margin (≈ 200 CPU-s per 1M steps measured for this layout with features).
TETRIS_TARGET_STEPS = 8_000_000
_TETRIS_LONG_PPO = _TETRIS_PPO.annealed_over(TETRIS_TARGET_STEPS)
_TETRIS_LONG = replace(
    _TETRIS,
    student=_student(_TETRIS_LONG_PPO, TETRIS_TARGET_STEPS),
    eval_points=7,
)
_TETRIS_TARGET_ARMS = {
    "target": Variant("target", _TETRIS_LONG, "target-only PPO, value with board features"),
    "target_raw_board": Variant(
        "target",
        replace(
            _TETRIS_LONG,
            student=replace(
                _TETRIS_LONG.student, ppo=replace(_TETRIS_LONG_PPO, board_features=False)
            ),
        ),
        "target-only PPO, value from the raw-board trunk alone (before this issue)",
    ),
}

# --- Craftax ---------------------------------------------------------------------------------
CRAFTAX_STEPS = 1_000_000
# The same batch for every arm: target-only in one slot of 64 envs, the curricula in 4 × 16.
_CRAFTAX_TARGET_PPO = CraftaxPPOConfig(
    num_slots=1, envs_per_slot=64, num_iterations=math.ceil(CRAFTAX_STEPS / 4096)
)
_CRAFTAX_PPO = replace(_CRAFTAX_TARGET_PPO, num_slots=4, envs_per_slot=16)
_CRAFTAX = MethodConfig(
    domain="craftax",
    student=_student(_CRAFTAX_PPO, CRAFTAX_STEPS, target_fraction=0.2),
    evaluator=EvaluatorSettings(games=64, max_steps=10_000),
    # 20 active levels for 3 level slots: about DiCode's 100 for 15.
    archive=ArchiveConfig(active_capacity=20),
    levels_per_session=1,
    eval_points=4,  # each evaluation also refreshes the profile the teacher reads
)
_CRAFTAX_ARMS = _variants(_CRAFTAX, {"dicode_skills": 0.2, "dicode_skills_share50": 0.5})
# The target's share on a schedule: all four slots on the target game at first, one slot
# fewer (share − 0.25, down to 0.2: one slot) each time its training return gains < 5 % over
# 8 sessions — levels take slots once the target game alone stops paying.
_SCHEDULED = replace(_CRAFTAX.student.curriculum, target_fraction=0.2, target_fraction_start=1.0)
_CRAFTAX_ARMS["dicode_skills_share_schedule"] = Variant(
    "dicode",
    replace(_CRAFTAX, student=replace(_CRAFTAX.student, curriculum=_SCHEDULED)),
    "DiCode with the skill instruction, target share 1 lowered while the target curve flattens",
)
_CRAFTAX_ARMS["target"] = Variant(
    "target",
    replace(_CRAFTAX, student=replace(_CRAFTAX.student, ppo=_CRAFTAX_TARGET_PPO)),
    "target-only PPO-RNN (64 envs on the target game)",
)
_CRAFTAX_ARMS["target_gtrxl"] = Variant(
    "target",
    replace(
        _CRAFTAX,
        student=replace(_CRAFTAX.student, ppo=replace(_CRAFTAX_TARGET_PPO, student="gtrxl")),
    ),
    "target-only PPO-GTrXL (DiCode's student, narrowed for the CPU; 64 envs on the target game)",
)

# --- maze --------------------------------------------------------------------------------------
MAZE_STEPS = 2_000_000
_MAZE_PPO = MazePPOConfig(num_slots=4, envs_per_slot=16, pool_size=32, num_steps=128, seed=0)
_MAZE = MethodConfig(
    domain="maze",
    student=_student(_MAZE_PPO, MAZE_STEPS, target_fraction=0.25),
    evaluator=EvaluatorSettings(games=8, max_steps=250),
    generator=GeneratorSettings(pool_size=8),
    archive=ArchiveConfig(active_capacity=27),
    levels_per_session=3,
    eval_points=8,  # each evaluation also refreshes the profile the teacher reads
)
_MAZE_ARMS = {
    # Domain randomisation: every slot plays the target game, which is DR (25 random walls).
    "dr": Variant("target", _MAZE, "domain randomisation: every slot on random 25-wall mazes"),
    "plr": Variant(
        "plr",
        replace(_MAZE, generator=replace(_MAZE.generator, skill_share=0.0)),
        "PLR: open-loop mutations (ACCEL-like), replay by learnability over measured levels",
    ),
    "dicode_skills": Variant(
        "dicode", _MAZE, "DiCode: closed loop with the skill instruction, PLR over the active set"
    ),
}

# --- maze: the literature's calibration and the sparse target ---------------------------------
# JaxUED's setting (docs/maze.md, "The JaxUED calibration"): 13×13, 25-wall DR, view 5, T = 250,
# reward 1 − 0.9·t/T, its eight named held-out mazes with 10 attempts each. Every arm plays
# 32 envs × 256 steps = 8,192 env steps per iteration (JaxUED's batch) with our network. The
# budget is 20M steps (≈ 2,400 iterations against JaxUED's 30k); the ``_2m`` experiments are
# the same arms at 2M steps, the budget a session of this 2-core machine affords (≈ 20 runs in
# an hour), with their own files: the step size anneals and DiCode's sessions are sized over the
# run's own budget, as at 20M.
MAZE_UED_STEPS = 20_000_000
AIMED_SESSION_STEPS = 50_000
MAZE_UED_CPU_STEPS = 2_000_000
_UED_EVAL = EvaluatorSettings(games=10, max_steps=250)  # JaxUED: 10 attempts per maze


def _ued_arms(ppo: MazePPOConfig, steps: int) -> dict[str, Variant]:
    """DR, robust PLR, ACCEL (one level per env, ``dicode.domains.maze.student.ued``) and DiCode
    with the skill instruction (our slot loop, mutation teacher) for one world setting."""
    # DiCode's slot loop with the same batch: 4 slots × 8 envs × 256 steps, one on the target.
    slot_ppo = replace(
        ppo, num_slots=4, envs_per_slot=8, pool_size=32, target_refresh=8, num_minibatches=1
    )
    ued = MethodConfig(
        domain="maze",
        student=StudentSettings(ppo),
        evaluator=_UED_EVAL,
        eval_points=10,
        ued=UEDConfig(),  # JaxUED's defaults: MaxMC, replay 0.8, staleness 0.3, temperature 0.3
    )
    # The maze curriculum's DiCode arm (target share, pool, archive, attempts) on this batch.
    dicode = replace(
        _MAZE,
        student=_student(slot_ppo, steps, target_fraction=0.25),
        evaluator=_UED_EVAL,
        eval_points=10,
    )
    return {
        "dr": Variant(
            "ued_dr", ued, "DR: fresh 25-wall mazes every iteration (one per env), trained on"
        ),
        "robust_plr": Variant(
            "robust_plr", ued,
            "robust PLR (PLR⊥): DR levels scored without a gradient step, replay (p 0.8) trained",
        ),
        "accel": Variant(
            "accel", ued, "ACCEL: robust PLR, replayed levels edited 5 times and scored"
        ),
        "dicode_skills": Variant(
            "dicode", dicode, "DiCode: closed loop with the skill instruction, one target slot"
        ),
    }  # fmt: skip


def _jaxued_arms(steps: int) -> dict[str, Variant]:
    """The calibration's arms at ``steps`` env steps."""
    ppo = JAXUED_LAYOUT.annealed_over(steps)
    arms = _ued_arms(ppo, steps)
    # DR as JaxUED's maze_dr.py trains it: a new random level at every episode's reset, not one
    # level per env replayed for the whole rollout. Here the target game itself (DR) in one slot
    # of 32 envs, its 64-maze pool wholly renewed before every iteration (+≈ 10 % host time).
    dr_ppo = replace(ppo, num_slots=1, envs_per_slot=32, pool_size=64, target_refresh=64)
    arms["dr"] = Variant(
        "target",
        replace(arms["dr"].config, student=StudentSettings(dr_ppo), ued=None),
        "DR (maze_dr.py): a fresh 25-wall maze at (almost) every episode, trained on",
    )
    return arms


def _long_path_arms(steps: int) -> dict[str, Variant]:
    """The sparse target's arms at ``steps`` env steps: perfect mazes with start and goal ≥ 60
    moves apart. Target-only PPO and DiCode's target slot train on the family; DR and ACCEL never
    see it (they start from random 25-wall levels); all are scored on 16 fixed mazes of it."""
    ppo = replace(JAXUED_LAYOUT.annealed_over(steps), target="long_paths", heldout="long_paths")
    arms = _ued_arms(ppo, steps)
    arms.pop("robust_plr")
    # Target-only: DiCode's arm as it is (same slots and student); the method fills every slot.
    target = Variant(
        "target",
        arms["dicode_skills"].config,
        "target-only PPO: every slot on long-path perfect mazes",
    )
    # The classic anchor (Florensa et al. 2017): the family's own mazes, the start 2 moves from
    # the goal at first, 2 moves farther each time 64 episodes succeed more than 70 % of the time.
    reverse = Variant(
        "reverse",
        replace(arms["accel"].config, ued=None, reverse=ReverseConfig()),
        "reverse curriculum: the family's mazes, the start moved back as the student masters it",
    )
    # DiCode aimed looks at the student every ≈ 50k env steps (``AIMED_SESSION_STEPS``), not
    # every 200k as 100 sessions of 20M do: its ladder steps one rung per look, where the
    # reverse curriculum checks every 64 episodes; Tetris and Craftax sessions are 10k at 1M.
    dicode = arms["dicode_skills"].config
    per_look = max(1, round(AIMED_SESSION_STEPS / dicode.student.ppo.batch_size))
    looks = replace(dicode.student, iterations_per_session=per_look)
    aimed = _aimed(replace(dicode, student=looks), share=0.5, floor=0.25)
    return {"target": target, **arms, "reverse": reverse, **aimed}


def _maze_ued_experiments(steps: int, suffix: str) -> dict[str, Experiment]:
    """The JaxUED calibration and the sparse target at ``steps`` env steps per run."""
    return {
        f"maze_jaxued{suffix}": Experiment(
            name=f"maze_jaxued{suffix}",
            protocol=(
                f"{steps:,} env steps per run (every rollout counts), training seeds 0–4; "
                "JaxUED's setting: 13×13, 25-wall DR, view 5, 250 steps, reward 1 − 0.9·t/T; "
                "zero-shot on JaxUED's 8 named held-out mazes (SixteenRooms, SixteenRooms2, "
                "Labyrinth, LabyrinthFlipped, Labyrinth2, StandardMaze, StandardMaze2, "
                "StandardMaze3; 10 attempts each, sampled actions, fixed key), solve rate; PPO "
                "with a GRU, 32 envs × 256 steps per iteration (one level per env for DR, "
                "robust PLR and ACCEL; 4 slots × 8 envs for DiCode), step size annealed over "
                "the budget"
            ),
            steps=steps,
            seeds=(0, 1, 2, 3, 4),
            baseline="dr",
            variants=_jaxued_arms(steps),
        ),
        f"maze_long_paths{suffix}": Experiment(
            name=f"maze_long_paths{suffix}",
            protocol=(
                f"{steps:,} env steps per run, training seeds 0–4; the sparse target: perfect "
                "mazes (depth-first spanning tree) with start and goal ≥ 60 moves apart; "
                "solve rate on 16 fixed mazes of the family (10 attempts each, sampled "
                "actions); target-only PPO and DiCode's target slot train on the family, DR and "
                "ACCEL never see it; 32 envs × 256 steps per iteration for every arm, step "
                "size annealed over the budget"
            ),
            steps=steps,
            seeds=(0, 1, 2, 3, 4),
            baseline="target",
            variants=_long_path_arms(steps),
            ablations=_aimed_ablations(),
        ),
    }


# --- maze: the literature's budget, on the device ------------------------------------------------
# The calibration's literature arms as device programs (``services/seed_runs.py``): the 20M rerun
# checks that a device program is the same science as the host loops of ``maze_jaxued`` (its DR
# arm's records: 0.449 ± 0.077); 60M is the budget this CPU affords over sessions (≈ 1 CPU-hour
# per DR seed); 250M is the literature's, for a GPU. DiCode's arm stays on the host (its
# sessions wait on the generator and the archive) and is not part of these.
MAZE_UED_LONG_STEPS = 60_000_000
MAZE_UED_LITERATURE_STEPS = 250_000_000


def _device_arms(steps: int) -> dict[str, Variant]:
    arms = _jaxued_arms(steps)
    arms.pop("dicode_skills")
    return arms


def _device_experiment(name: str, steps: int, why: str) -> Experiment:
    return Experiment(
        name=name,
        protocol=(
            f"{steps:,} env steps per run (every rollout counts), training seeds 0–4, {why}; "
            "each arm's seeds trained as device programs (the iteration — levels, PPO, PLR's "
            "buffer — compiled and chained on the device; mazes made there from the host "
            "generators' distributions); JaxUED's setting: 13×13, 25-wall DR, view 5, 250 "
            "steps, reward 1 − 0.9·t/T; zero-shot on JaxUED's 8 named held-out mazes (10 "
            "attempts each, sampled actions, fixed key), solve rate; PPO with a GRU, 32 envs × "
            "256 steps per iteration, step size annealed over the budget"
        ),
        steps=steps,
        seeds=(0, 1, 2, 3, 4),
        baseline="dr",
        variants=_device_arms(steps),
    )


EXPERIMENTS = {
    "tetris_target": Experiment(
        name="tetris_target",
        protocol=(
            f"{TETRIS_TARGET_STEPS:,} env steps per run (≤ 30 CPU-minutes of training), "
            f"training seeds 0–4; greedy policy on the target protocol (evaluation seed 0, "
            f"{TETRIS_GAMES} games, 1,000-piece cap), lines per game; one 5-slot × 13-env PPO "
            "student, every slot on the target game, step size annealed over the budget"
        ),
        steps=TETRIS_TARGET_STEPS,
        seeds=(0, 1, 2, 3, 4),
        baseline="target",
        variants=_TETRIS_TARGET_ARMS,
    ),
    "tetris_curriculum": Experiment(
        name="tetris_curriculum",
        protocol=(
            f"{TETRIS_STEPS:,} env steps per run (every slot's pieces count), training seeds "
            f"0–4; greedy policy on the target protocol (evaluation seed 0, {TETRIS_GAMES} games, "
            "1,000-piece cap), lines per game; one 5-slot × 13-env PPO student for every arm, "
            "step size annealed over the budget, sessions of "
            f"{_TETRIS.student.iterations_per_session} iterations, "
            f"{_TETRIS.levels_per_session} mutation-teacher attempts before each"
        ),
        steps=TETRIS_STEPS,
        seeds=(0, 1, 2, 3, 4),
        baseline="target",
        variants=_TETRIS_ARMS | _TETRIS_ABLATIONS | _aimed(_SHARE60, share=0.6, floor=0.2),
        ablations=_TETRIS_ABLATION_PAIRS + _aimed_ablations(),
    ),
    "craftax_1m": Experiment(
        name="craftax_1m",
        protocol=(
            f"{CRAFTAX_STEPS:,} env steps per run, training seeds 0–2; the Craftax paper's "
            "evaluation on the real Craftax-Symbolic game (fixed key, 64 games, first episode "
            "each, 10,000-step cap, sampled actions), % of the maximum return 226; PPO-RNN (GRU "
            "256), 64 envs × 64 steps per iteration, lr 2e-4 annealed over the budget; curricula "
            f"in 4 slots × 16 envs, sessions of {_CRAFTAX.student.iterations_per_session} "
            "iterations, one mutation-teacher attempt before each"
        ),
        steps=CRAFTAX_STEPS,
        seeds=(0, 1, 2),
        baseline="target",
        variants=_CRAFTAX_ARMS
        | _aimed(_CRAFTAX_ARMS["dicode_skills_share_schedule"].config, share=0.5, floor=0.2),
        ablations=_aimed_ablations(),
    ),
    "maze_curriculum": Experiment(
        name="maze_curriculum",
        protocol=(
            f"{MAZE_STEPS:,} env steps per run, training seeds 0–4; zero-shot on the 12 "
            "held-out mazes of dicode/domains/maze/heldout.py none of the arms trains on (large "
            "rooms, long corridors, dead ends, labyrinths, perfect mazes; 8 episodes each, "
            "sampled actions, fixed key), solve rate; PPO with a GRU, 4 slots × 16 envs × 128 "
            f"steps, sessions of {_MAZE.student.iterations_per_session} iterations, "
            f"{_MAZE.levels_per_session} mutation-teacher attempts before each"
        ),
        steps=MAZE_STEPS,
        seeds=(0, 1, 2, 3, 4),
        baseline="dr",
        variants=_MAZE_ARMS,
    ),
    **_maze_ued_experiments(MAZE_UED_STEPS, ""),
    **_maze_ued_experiments(MAZE_UED_CPU_STEPS, "_2m"),
    "maze_jaxued_device": _device_experiment(
        "maze_jaxued_device", MAZE_UED_STEPS, "maze_jaxued's arms rerun as device programs"
    ),
    "maze_jaxued_60m": _device_experiment(
        "maze_jaxued_60m", MAZE_UED_LONG_STEPS, "three times maze_jaxued's budget"
    ),
    "maze_jaxued_250m": _device_experiment(
        "maze_jaxued_250m", MAZE_UED_LITERATURE_STEPS, "the literature's budget (for a GPU)"
    ),
}
