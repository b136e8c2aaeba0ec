"""The field report's table of policies, completed: its MoE ranker and baselines, both encodings.

    PYTHONPATH=$PWD python benchmarks/tetris_moe.py

Plays ``moe`` (``dicode.domains.tetris.moe``), the BCTS planner (the anchor) and the two
planner-free baselines (``random``; ``first_legal``, what the LLM player falls back to) on the
target protocol (evaluation seed 0, 20 games, 1,000-piece cap, uniform pieces), once with the
legacy 40-action encoding and once with all 162 placements. Prints a side-by-side table with the
field report's figures (MoE 12.4 lines on 40 actions; its heuristic planner 370 lines with all
placements and 7.9 without the negative-x ones; random play 0 lines on 40 actions) and writes
``docs/figures/tetris_moe.json`` (per row: method, encoding, figures, cost, config; provenance).
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from dicode.domains.tetris.evaluate import CAPS, DEFAULT_GAMES, DEFAULT_SEED, evaluate
from dicode.provenance import write_figures

METHODS = ("moe", "bcts", "random", "first_legal")
ENCODINGS = {"legacy_40": True, "placements_162": False}  # name -> legacy_actions
#: The field report's figures (seed 000), lines per game; None where it reported none.
REPORTED: dict[tuple[str, str], float | None] = {
    ("moe", "legacy_40"): 12.4,
    ("moe", "placements_162"): None,
    ("bcts", "legacy_40"): 7.9,  # its "heuristic planner", not necessarily BCTS
    ("bcts", "placements_162"): 370.0,
    ("random", "legacy_40"): 0.0,  # 25 pieces a game
    ("random", "placements_162"): None,
    ("first_legal", "legacy_40"): None,
    ("first_legal", "placements_162"): None,
}


def run(method: str, encoding: str, games: int, max_pieces: int, seed: int) -> dict[str, Any]:
    """One protocol run of ``method`` on ``encoding``; the figures row."""
    report = evaluate(
        method, games=games, max_pieces=max_pieces, seed=seed, legacy_actions=ENCODINGS[encoding]
    )
    lines = report["per_game_lines"]
    return {
        "method": method,
        "encoding": encoding,
        "figures": {
            "mean_lines": report["lines"]["mean"],
            "std_lines": statistics.stdev(lines) if len(lines) > 1 else None,
            "median_lines": report["lines"]["median"],
            "mean_pieces": report["pieces"]["mean"],
            "capped": report["capped"],
            "per_game_lines": lines,
        },
        "reported_by_field_report": REPORTED[(method, encoding)],
        "cost": {"seconds": report["seconds"]},
        "config": {
            "games": games,
            "max_pieces": max_pieces,
            "seed": seed,
            "legacy_actions": ENCODINGS[encoding],
            "randomiser": report["randomiser"],
        },
    }


def table(rows: list[dict[str, Any]]) -> str:
    """Side-by-side text table: ours (mean ± sample std, pieces, capped, s) vs the report."""
    out = [
        f"{'method':<6} {'encoding':<15} {'lines (ours)':>16} {'pieces':>7} {'capped':>7} "
        f"{'s':>6} {'field report':>13}"
    ]
    for row in rows:
        f, reported = row["figures"], row["reported_by_field_report"]
        lines = f"{f['mean_lines']:.1f} ± {f['std_lines'] or 0:.1f}"
        out.append(
            f"{row['method']:<6} {row['encoding']:<15} {lines:>16} {f['mean_pieces']:>7.1f} "
            f"{f['capped']:>4}/{row['config']['games']:<2} {row['cost']['seconds']:>6.1f} "
            f"{'—' if reported is None else f'{reported:.1f}':>13}"
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES)
    parser.add_argument("--max-pieces", type=int, default=CAPS[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args()
    rows = []
    for method in METHODS:
        for encoding in ENCODINGS:
            rows.append(run(method, encoding, args.games, args.max_pieces, args.seed))
            print(f"{method} {encoding}: {rows[-1]['figures']['mean_lines']:.1f} lines", flush=True)
    print(table(rows))
    protocol = (
        f"target protocol: evaluation seed {args.seed}, {args.games} games, "
        f"{args.max_pieces}-piece cap, uniform pieces; lines per game, sample std over games. "
        "Field report: MoE on its 40 actions; its heuristic planner with all placements and "
        "with the negative-x ones removed (its encoding reached 151 of 162, ours 157)."
    )
    path = write_figures("tetris_moe", {"protocol": protocol, "runs": rows})
    print(f"→ {path}")


if __name__ == "__main__":
    main()
