"""Mutation teacher benchmark: acceptance and difficulty shift per seed level.

For every Tetris seed level, the mutation teacher writes ``--children`` children per
instruction (harder / vary / easier); each child goes through the full sandbox pipeline
(static checks, sandboxed build, schema checks, engine rollouts of a random and a heuristic
policy). Printed per seed level and instruction: children accepted, and the mean shift of the
recorded difficulty estimates (child minus parent, accepted children only) — heuristic and
random success rates and heuristic lines. "Harder" should shift success rates down, "easier"
up.

    PYTHONPATH=. python benchmarks/mutation_teacher.py --children 20 --json out.json
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from dicode import domains
from dicode.levels.pipeline import Validator
from dicode.teachers.base import (
    MutationInstruction,
    ParentLevel,
    PerformanceProfile,
    TeacherRequest,
    TeacherResult,
)
from dicode.teachers.mutation import MutationTeacher

SEED_DIR = Path(__file__).resolve().parents[1] / "dicode" / "domains" / "tetris" / "seed_levels"
METRICS = ("heuristic_success", "random_success", "heuristic_pieces", "random_pieces")
INSTRUCTIONS = (MutationInstruction.HARDER, MutationInstruction.VARY, MutationInstruction.EASIER)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--children", type=int, default=20, help="children per instruction")
    parser.add_argument("--pool-size", type=int, default=32, help="instances per level pool")
    parser.add_argument("--rollout-steps", type=int, default=300, help="pieces per rollout")
    parser.add_argument("--seed", type=int, default=0, help="teacher seed")
    parser.add_argument("--concurrency", type=int, default=2, help="children validated at once")
    parser.add_argument(
        "--no-rollouts", action="store_true", help="skip engine rollouts (acceptance only)"
    )
    parser.add_argument(
        "--instructions",
        nargs="*",
        default=[str(i) for i in INSTRUCTIONS],
        choices=[str(i) for i in INSTRUCTIONS],
        help="instructions to run (default: all three)",
    )
    parser.add_argument("--levels", nargs="*", help="seed level stems to run (default: all)")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    return parser.parse_args()


async def children_of(
    teacher: MutationTeacher,
    parent: ParentLevel,
    instruction: MutationInstruction,
    count: int,
    concurrency: int,
) -> list[TeacherResult]:
    limit = asyncio.Semaphore(concurrency)

    async def one(seed: int) -> TeacherResult:
        request = TeacherRequest(parent, PerformanceProfile(), instruction, (), seed)
        async with limit:
            return await teacher.propose(request)

    return list(await asyncio.gather(*(one(seed) for seed in range(count))))


def shifts(parent: dict[str, float], results: list[TeacherResult]) -> dict[str, float | None]:
    """Mean child-minus-parent difference per metric over the accepted children."""
    out: dict[str, float | None] = {}
    for metric in METRICS:
        deltas = [
            float(difficulty[metric]) - parent[metric]
            for r in results
            if r.accepted
            and metric in (difficulty := getattr(r.verdict, "difficulty", {}))
            and metric in parent
        ]
        out[metric] = statistics.fmean(deltas) if deltas else None
    return out


def main() -> None:
    args = parse_args()
    paths = sorted(p for p in SEED_DIR.glob("*.py") if not p.name.startswith("_"))
    if args.levels:
        paths = [p for p in paths if p.stem in set(args.levels)]
    report: dict[str, Any] = {"settings": vars(args) | {"json": str(args.json)}, "levels": {}}
    started = time.perf_counter()
    tetris = domains.get("tetris")
    with Validator(
        tetris,
        pool_size=args.pool_size,
        rollout_steps=args.rollout_steps,
        rollouts=not args.no_rollouts,
    ) as v:
        teacher = MutationTeacher(v.validate, tetris.genome(), seed=args.seed)
        header = f"{'seed level':<22} {'instr':<7} {'accepted':>9} " + " ".join(
            f"{'Δ' + m:>19}" for m in METRICS
        )
        print(header)
        print("-" * len(header))
        for path in paths:
            source = path.read_text()
            parent_verdict = v.validate(source)
            if not parent_verdict.accepted:
                print(f"{path.stem:<22} parent rejected: {parent_verdict.error}")
                continue
            parent_difficulty = dict(parent_verdict.difficulty)
            parent = ParentLevel(
                ast.get_docstring(ast.parse(source)) or "", source, level_id=path.stem
            )
            entry: dict[str, Any] = {"parent": parent_difficulty}
            print(
                f"{path.stem:<22} {'parent':<7} {'':>9} "
                + " ".join(f"{parent_difficulty.get(m, float('nan')):>19.3f}" for m in METRICS)
            )
            for instruction in map(MutationInstruction, args.instructions):
                results = asyncio.run(
                    children_of(teacher, parent, instruction, args.children, args.concurrency)
                )
                accepted = sum(r.accepted for r in results)
                mean_shift = shifts(parent_difficulty, results)
                stages: dict[str, int] = {}
                for r in results:
                    if not r.accepted:
                        stages[r.failing_stage or "unknown"] = stages.get(
                            r.failing_stage or "unknown", 0
                        ) + 1
                entry[str(instruction)] = {
                    "accepted": accepted,
                    "children": len(results),
                    "rejected_by_stage": stages,
                    "mean_shift": mean_shift,
                    "errors": [r.error for r in results if not r.accepted][:3],
                }
                cells = " ".join(
                    f"{'n/a':>19}" if mean_shift[m] is None else f"{mean_shift[m]:>+19.3f}"
                    for m in METRICS
                )
                print(f"{'':<22} {instruction!s:<7} {accepted:>4}/{len(results):<4} {cells}")
            report["levels"][path.stem] = entry
    report["seconds"] = time.perf_counter() - started
    print_overall(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


def print_overall(report: dict[str, Any]) -> None:
    """Acceptance over all levels and the mean shift per instruction (levels weighted alike)."""
    print()
    for instruction in report["settings"]["instructions"]:
        entries = [e[instruction] for e in report["levels"].values()]
        accepted = sum(e["accepted"] for e in entries)
        total = sum(e["children"] for e in entries)
        worst = min((e["accepted"] / e["children"] for e in entries), default=0.0)
        means = []
        for metric in METRICS:
            values = [e["mean_shift"][metric] for e in entries]
            values = [v for v in values if v is not None]
            means.append(f"{metric} {statistics.fmean(values):+.3f}" if values else f"{metric} n/a")
        print(
            f"{instruction:<7} accepted {accepted}/{total} (worst level {100 * worst:.0f}%); "
            f"mean shift: {', '.join(means)}"
        )
    print(f"total time {report['seconds']:.0f} s")


if __name__ == "__main__":
    main()
