"""A small real archive for the browser tests, written through the archive's own API: seed
levels of every world validated in the real sandbox (so previews are drawn from real bundles),
LLM-written children with their prompts and instructions, rejected attempts, evaluations,
student sessions and target evaluations."""

from __future__ import annotations

from dataclasses import dataclass, field

from archive_db import ArchiveRepository
from archive_db.kinds import SESSION_EVENT, TARGET_EVENT
from archive_db.recording import BUNDLE_FORMAT, record_verdict
from archive_db.records import NewAttempt, NewLevel, content_hash
from dicode import domains
from dicode.levels.pipeline import Validator

WORLDS = ("tetris", "craftax", "maze")
INSTRUCTIONS = ("harder", "easier", "vary", "skill")
ITERATIONS = (2, 4, 6)
STEPS_PER_ITERATION = 512
REJECTIONS = (("syntax", "line 3: invalid syntax"), ("sandbox", "build() ran past 5 s"))


@dataclass
class WorldRun:
    name: str
    levels: list[int] = field(default_factory=list)
    children: dict[int, int] = field(default_factory=dict)  # LLM child -> parent
    rejected: int = 0
    target_points: int = 0


def build_archive(url: str, children_per_seed: int = 6) -> dict[str, WorldRun]:
    """One run per world: two seeds, ``children_per_seed`` LLM children under each (a binary
    family tree), two rejected attempts, evaluations and events."""
    repo = ArchiveRepository.open(url)
    runs = {}
    for world in WORLDS:
        domain = domains.get(world)
        run = WorldRun(name=f"web-{world}")
        run_id = repo.runs.create(run.name, domain=world, seed=0, config={}).id
        seeds = list(domain.seed_sources().items())[:2]
        with Validator(domain, pool_size=4, warm=1, rollouts=False) as validator:
            for name, code in seeds:
                verdict = validator.validate(code)
                recorded = record_verdict(
                    repo, run_id, world, "seed", code, verdict, 0.2, name=name
                )
                assert recorded.level is not None, verdict.error
                run.levels.append(recorded.level.id)
        for seed_id, (_, code) in zip(list(run.levels), seeds, strict=True):
            family = [seed_id]
            for k in range(children_per_seed):
                family.append(_child(repo, run_id, world, code, family[k // 2], k, run))
        for stage, error in REJECTIONS:
            attempt = NewAttempt(
                teacher="llm",
                stage_reached=stage,
                verdict="rejected",
                parent_id=run.levels[0],
                code=f"def build(:  # broken at {stage}",
                failing_stage=stage,
                error=error,
                latency_s=1.5,
            )
            repo.attempts.record(run_id, attempt)
            run.rejected += 1
        for n, iteration in enumerate(ITERATIONS):
            for level in run.levels[n::2]:
                repo.record_evaluation(
                    level, student_iteration=iteration, episodes=4, successes=(level + n) % 5
                )
            steps = iteration * STEPS_PER_ITERATION
            session = {"iteration": iteration, "env_steps": steps}
            repo.events.add(SESSION_EVENT, session, run_id=run_id)
            figures = {domain.target_metrics[0]: 1.0 + n, "games": 4}
            repo.events.add(TARGET_EVENT, {"iteration": iteration, **figures}, run_id=run_id)
            run.target_points += 1
        repo.active.force(run.levels[-1], True)
        repo.mark_sampled(run.levels[:3], step=2)
        runs[world] = run
    repo.close()
    return runs


def _child(
    repo: ArchiveRepository, run_id: int, world: str, code: str, parent: int, k: int, run: WorldRun
) -> int:
    instruction = INSTRUCTIONS[k % len(INSTRUCTIONS)]
    child_code = f"{code}\n# {instruction}: child {k} of level {parent}\n"
    attempt = NewAttempt(
        teacher="llm",
        stage_reached="accepted",
        verdict="accepted",
        parent_id=parent,
        code=child_code,
        prompts=[
            {"role": "system", "content": "You write levels as Python code."},
            {"role": "user", "content": f"Make level {parent} {instruction}."},
        ],
        responses=[{"role": "assistant", "content": f"```python\n{child_code}```"}],
        latency_s=2.0 + k,
        tokens_in=900,
        tokens_out=400,
    )
    level = NewLevel(
        domain=world,
        content_hash=content_hash(world, str(parent), str(k)),
        teacher="llm",
        code=child_code,
        description=f"Level {parent}, made {instruction} (child {k}).",
        bundle=repo.get_bundle(parent),  # the parent's pool: the renderer draws it
        bundle_format=BUNDLE_FORMAT,
        name=f"{instruction}-{parent}-{k}",
        meta={"instruction": instruction},
        parent_ids=(parent,),
    )
    recorded = repo.attempts.record(run_id, attempt, level)
    assert recorded.level is not None
    run.levels.append(recorded.level.id)
    run.children[recorded.level.id] = parent
    return recorded.level.id
