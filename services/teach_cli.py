"""``dicode teach``: generate N children of one parent level with a named teacher.

Writes ``child_NNN.json`` (the full attempt record), ``child_NNN.py`` (the code, when there is
any) and ``summary.json`` into ``--out``; prints the summary. Teachers come from the registry,
so ``--teacher`` accepts whatever is registered there.
"""

from __future__ import annotations

import ast
import asyncio
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from dicode.teachers.base import (
    ExampleLevel,
    MutationInstruction,
    ParentLevel,
    PerformanceProfile,
    Teacher,
    TeacherRequest,
    TeacherResult,
)
from dicode.teachers.registry import TeacherContext, make_teacher, teacher_names
from dicode.teachers.world import TeachingWorld
from services.domain_option import DomainOption, resolve_world

if TYPE_CHECKING:
    from dicode.domains.base import Domain
    from dicode.teachers.validation import SandboxValidate

teach_app = typer.Typer(help="Generate child levels from a parent level with a teacher.")


def level_description(source: str) -> str:
    """A level's description = its module docstring, read with ``ast`` (never imported)."""
    try:
        return ast.get_docstring(ast.parse(source)) or ""
    except SyntaxError:
        return ""


def read_level_file(path: Path, profile: PerformanceProfile | None = None) -> ParentLevel:
    """A parent level from a level file (``level_id`` = file stem)."""
    source = path.read_text(encoding="utf-8")
    return ParentLevel(
        level_description(source), source, profile or PerformanceProfile(), path.stem
    )


def read_profile(path: Path | None) -> PerformanceProfile:
    """``{"success_rate_history": [...], "goal_metrics": {...}}`` from JSON, or an empty one."""
    if path is None:
        return PerformanceProfile()
    return PerformanceProfile.from_dict(json.loads(path.read_text(encoding="utf-8")))


def seed_examples(world: Domain, exclude: Path | None = None) -> list[ExampleLevel]:
    """The world's seed levels as example candidates (the parent itself left out)."""
    skip = exclude.read_text(encoding="utf-8") if exclude else None
    return [
        ExampleLevel(level_description(source), source, name)
        for name, source in world.seed_sources().items()
        if source != skip
    ]


@dataclass
class TeachSummary:
    accepted: int
    rejected: int
    by_stage: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {"accepted": self.accepted, "rejected": self.rejected, "by_stage": self.by_stage}


def summarize(results: list[TeacherResult]) -> TeachSummary:
    """Counts, with rejections grouped by the stage that failed."""
    rejected = [r for r in results if not r.accepted]
    stages = Counter(r.failing_stage or "unknown" for r in rejected)
    return TeachSummary(len(results) - len(rejected), len(rejected), dict(sorted(stages.items())))


async def generate_children(
    teacher: Teacher, requests: list[TeacherRequest], concurrency: int
) -> list[TeacherResult]:
    """Run the attempts with at most ``concurrency`` in flight; order follows ``requests``."""
    limit = asyncio.Semaphore(concurrency)

    async def one(request: TeacherRequest) -> TeacherResult:
        async with limit:
            return await teacher.propose(request)

    try:
        return list(await asyncio.gather(*(one(r) for r in requests)))
    finally:
        close = getattr(teacher, "aclose", None)
        if close is not None:
            await close()


def write_results(out: Path, results: list[TeacherResult], summary: TeachSummary) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for index, result in enumerate(results):
        stem = out / f"child_{index:03d}"
        stem.with_suffix(".json").write_text(json.dumps(result.to_record(), indent=2) + "\n")
        if result.code:
            stem.with_suffix(".py").write_text(result.code)
    (out / "summary.json").write_text(json.dumps(summary.as_dict(), indent=2) + "\n")


def default_validator(
    world: TeachingWorld, seed: int, pool_size: int, rollouts: bool
) -> SandboxValidate:
    """The sandbox pipeline for ``world`` (imported here so ``--help`` stays fast)."""
    from dicode.teachers.validation import sandbox_validator

    return sandbox_validator(world, seed, pool_size=pool_size, rollouts=rollouts)


def record_in_archive(
    db_url: str,
    run_name: str,
    domain: str,
    seed: int,
    parent_path: Path,
    results: list[TeacherResult],
) -> int:
    """Store the parent (as a level) and every attempt under run ``run_name``; returns run id."""
    from archive_db.kinds import FILE_TEACHER
    from archive_db.recording import record_result
    from archive_db.records import NewLevel
    from archive_db.repository import ArchiveRepository
    from dicode.levels.bundle import source_hash

    repository = ArchiveRepository.open(db_url)
    try:
        run = repository.runs.open(run_name, domain=domain, seed=seed)
        source = parent_path.read_text(encoding="utf-8")
        parent = repository.levels.insert(
            run.id,
            NewLevel(
                domain=domain,
                content_hash=source_hash(source),
                teacher=FILE_TEACHER,
                code=source,
                description=level_description(source),
                name=parent_path.stem,
            ),
        )
        for result in results:
            record_result(repository, run.id, result, domain, parent_id=parent.id)
        return run.id
    finally:
        repository.close()


@teach_app.callback(invoke_without_command=True)
def teach(
    parent: Annotated[
        Path, typer.Option(help="parent level file (.py)", exists=True, dir_okay=False)
    ],
    out: Annotated[Path, typer.Option(help="folder for the children and their records")],
    domain: DomainOption = "tetris",
    teacher: Annotated[
        str, typer.Option(help="teacher name: " + ", ".join(teacher_names()))
    ] = "llm",
    n: Annotated[int, typer.Option(help="number of children", min=1)] = 10,
    profile: Annotated[Path | None, typer.Option(help="parent performance profile (JSON)")] = None,
    target_profile: Annotated[
        Path | None, typer.Option(help="target game performance profile (JSON)")
    ] = None,
    instruction: Annotated[
        MutationInstruction | None,
        typer.Option(help="override the instruction derived from the parent's status"),
    ] = None,
    seed: Annotated[int, typer.Option(help="base seed; child i uses seed + i")] = 0,
    concurrency: Annotated[int, typer.Option(help="attempts in flight", min=1)] = 4,
    pool_size: Annotated[int, typer.Option(help="sandbox pool instances per level", min=1)] = 32,
    rollouts: Annotated[bool, typer.Option(help="run the engine rollout stage")] = True,
    db: Annotated[
        str | None, typer.Option(help="archive database URL to record attempts in")
    ] = None,
    run: Annotated[str, typer.Option(help="archive run name (with --db)")] = "teach",
    json_output: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
) -> None:
    """Generate N children of PARENT, validate each in the sandbox, record every attempt."""
    world = resolve_world(domain)
    if teacher not in teacher_names():
        known = ", ".join(teacher_names())
        raise typer.BadParameter(
            f"unknown teacher {teacher!r}; known: {known}", param_hint="--teacher"
        )
    parent_level = read_level_file(parent, read_profile(profile))
    target = read_profile(target_profile)
    examples = tuple(seed_examples(world, exclude=parent))
    requests = []
    for i in range(n):
        request = TeacherRequest.for_parent(parent_level, target, examples, seed=seed + i)
        if instruction is not None:
            request = TeacherRequest(parent_level, target, instruction, examples, seed + i)
        requests.append(request)
    validate = default_validator(world, seed, pool_size, rollouts)
    try:
        try:
            built = make_teacher(teacher, TeacherContext(world, validate, seed))
        except ValueError as exc:  # e.g. no LLM endpoint configured
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        results = asyncio.run(generate_children(built, requests, concurrency))
    finally:
        validate.close()
    summary = summarize(results)
    write_results(out, results, summary)
    if db is not None:
        record_in_archive(db, run, domain, seed, parent, results)
    if json_output:
        typer.echo(json.dumps(summary.as_dict()))
    else:
        typer.echo(
            f"accepted {summary.accepted}, rejected {summary.rejected}: {summary.by_stage}"
            f" — records in {out}"
        )
