"""Rebuild the experiment tables of ``docs/results.md`` from the experiments' own JSON files.

    PYTHONPATH=$PWD python benchmarks/results_tables.py

Each experiment's section sits between ``<!-- experiment:NAME -->`` and
``<!-- /experiment:NAME -->`` markers and is generated from ``docs/figures/NAME.json``
(written run by run by ``benchmarks/experiment.py``): the protocol, one row per variant (n,
mean ± sample std of the run figures — each the mean of the run's last three evaluations —
the final evaluation's mean beside them, the seeds' values, the difference to the baseline
with its 95 % interval and whether it moved — only when the interval excludes zero —, cost,
what the teacher produced and how the free slots were filled), the declared ablations (paired
by seed), the per-skill figures side by side, each arm read against the baseline's curve at the
steps it played on the target game (curricula) or took gradient steps on (the literature's
loops), a longer-budget experiment read against its shorter twin (``LONGER_BUDGETS``, in
``benchmarks/budget_comparison.py``: gains and changes of gap paired by seed, crossings), and
where the runs came from (commits, numeric stack, processors, command lines, records edited by
hand or run from a dirty tree), with its picture after the main table:
``docs/figures/plots/NAME.svg``, redrawn by the same command (``benchmarks/results_plots.py``:
the arms' learning curves and run figures). The judge benchmarks' files (``JUDGE_BENCHMARKS``,
written by ``benchmarks/judge_eval.py``, ``judge_collapse.py`` and ``judge_real_model.py``) are
rendered the same way: the protocol, one row per (judge, mode) run with the gate's verdict, and
where the runs came from. Text outside the markers is the analysis, written by people; a
missing section is appended.
"""

from __future__ import annotations

import json
import os
import statistics
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.budget_comparison import LONGER_BUDGETS, budget_lines
from benchmarks.results_plots import write_plots
from dicode.provenance import FIGURES, ROOT
from dicode.student.curriculum import CurriculumConfig, num_target_slots
from services.method_records import REVERSE_METHOD, UED_METHODS
from services.run_figures import (
    LAST,
    Ablation,
    edited,
    interval_text,
    moved_word,
    run_figure,
    summarise,
)

RESULTS = ROOT / "docs" / "results.md"
ORDER = (
    "tetris_target", "tetris_curriculum", "craftax_1m", "maze_curriculum", "maze_jaxued",
    "maze_jaxued_device", "maze_jaxued_60m", "maze_jaxued_250m", "maze_long_paths",
    "maze_jaxued_2m", "maze_long_paths_2m",
)  # fmt: skip
JUDGE_BENCHMARKS = ("judge_eval", "judge_collapse", "judge_vllm", "judge_llama")
SKILLS_SHOWN = 24  # skills listed per table (those that differ most between variants)


def section(
    document: dict[str, Any],
    picture: str | None = None,
    shorter: dict[str, Any] | None = None,
) -> str:
    """The markdown of one experiment (without its markers); ``picture``, the path of its plot
    relative to the markdown file, is shown after the main table; ``shorter``, the figures of
    its shorter-budget twin (``LONGER_BUDGETS``), is read against it after the ablations."""
    runs = document["runs"]
    headline = document.get("summary", {}).get("headline", "?")
    # Recomputed from the records, so the table never shows a summary of another rule.
    ablations = [Ablation(**a) for a in document.get("ablations", [])]
    summary = summarise(runs, headline, document["baseline"], ablations)
    lines = [
        f"Protocol: {document['protocol']}",
        "",
        f"A run's figure is the mean of its last {LAST} evaluations (the final one beside it); "
        "an arm moved only where the 95 % interval of its difference excludes zero.",
        "",
        f"| variant | what it changes | n | {headline}, last {LAST} (mean ± sample std) | final "
        f"(mean) | per seed | vs {document['baseline']} (Δ, 95 % CI) | moved? | CPU-min per run "
        "| levels accepted / attempts / trained | slot-sessions new / replay (replay share) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, stats in summary.get("variants", {}).items():
        mine = sorted((r for r in runs if r["variant"] == name), key=lambda r: r["seed"])
        per_seed = ", ".join(f"{run_figure(r, headline):.3g}" for r in mine)
        versus = stats.get("vs_baseline")
        delta = interval_text(versus) if versus else "—"
        final = stats.get("final_mean")
        final_text = f"{final:.3g}" if final is not None else "—"
        cpu = statistics.mean(r["cost"]["train_cpu_s"] for r in mine) / 60
        made = [r["teacher"] for r in mine]
        teacher = (
            f"{sum(t['accepted'] for t in made)} / {sum(t['attempts'] for t in made)} / "
            f"{sum(t['levels_trained'] for t in made)}"
            if any(t["attempts"] for t in made)
            else "—"
        )
        note = document["variants"].get(name, {}).get("note", "")
        # One run has no spread: say so rather than print a std of 0.
        spread = f" ± {stats['std']:.3g}" if stats["n"] > 1 else " (one seed)"
        lines.append(
            f"| {name} | {note} | {stats['n']} | {stats['mean']:.3g}{spread} | {final_text} | "
            f"{per_seed} | {delta} | {moved_word(versus)} | {cpu:.1f} | {teacher} | "
            f"{slot_mix(mine)} |"
        )
    if picture is not None:
        lines += [
            "",
            f"![Each arm's learning curve (mean over seeds, 95 % band) and run figures, with "
            f"the difference to {document['baseline']}]({picture})",
        ]
    lines += ["", *_ablation_table(summary, headline)]
    if shorter is not None:
        lines += budget_lines(document["experiment"], document, shorter)
    lines += [*_skill_table(runs), ""]
    lines += [*_equal_target_steps(document), *_equal_gradient_steps(document)]
    lines += [*_trained_levels_table(runs), *_mechanisms_table(runs), _origin(runs)]
    return "\n".join(lines)


def judge_section(document: dict[str, Any]) -> str:
    """The markdown of one judge benchmark (without its markers): protocol, runs, origin."""
    runs = document["runs"]
    return "\n".join(
        [f"Protocol: {document['protocol']}", "", *judge_table(runs), "", _origin(runs)]
    )


def judge_table(runs: list[dict[str, Any]]) -> list[str]:
    """One row per (judge, mode) run, in the order the runner wrote them."""
    return [
        "| judge | mode | states | accuracy | strict | tie rate | error rate | best vs worst "
        "(better/tie/worse/error) | τ-b | top-1 | scores: distinct (entropy, bits); mean best / "
        "worst | swap consistency / first-position picks | calls (s per call) | gate |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        *(judge_row(run) for run in runs),
    ]


def judge_row(run: dict[str, Any]) -> str:
    """A run's figures; "–" where its mode measures nothing (ranks in pairwise mode, position
    bias in absolute mode)."""
    f = run["figures"]
    bw = f["best_vs_worst"]

    def number(value: float | None) -> str:
        return "–" if value is None else f"{value:.3f}"

    scores = "–"
    if f["score"] is not None:
        scores = (
            f"{f['score']['distinct']} ({f['score']['entropy_bits']:.2f}); "
            f"{number(f['mean_score_best'])} / {number(f['mean_score_worst'])}"
        )
    position = "–"
    if f["swap_consistency"] is not None:
        position = f"{f['swap_consistency']:.2f} / {f['first_position_rate']:.2f}"
    gate = run["gate"]
    verdict = "admitted" if gate["admitted"] else f"refused ({'; '.join(gate['failures'])})"
    return (
        f"| {run['judge']} | {run['mode']} | {run['states']} | {f['pairwise_accuracy']:.3f} | "
        f"{f['strict_accuracy']:.3f} | {f['tie_rate']:.3f} | {f['error_rate']:.3f} | "
        f"{bw['correct']}/{bw['tie']}/{bw['wrong']}/{bw['error']} | {number(f['kendall_tau'])} | "
        f"{number(f['top1_agreement'])} | {scores} | {position} | "
        f"{f['calls']} ({f['mean_latency_s']:.2g}) | {verdict} |"
    )


def slot_mix(runs: list[dict[str, Any]]) -> str:
    """Summed new and replay slot-sessions of runs that counted them, and replay's share (the
    reverse curriculum's runs count gradient steps and its ladder's rung instead: "—")."""
    counted = [r["slots"] for r in runs if r.get("slots") and "new" in r["slots"]]
    new = sum(c["new"] for c in counted)
    replayed = sum(c["replay"] for c in counted)
    if not counted or new + replayed == 0:
        return "—" if not counted else "0 / 0"
    return f"{new} / {replayed} ({replayed / (new + replayed):.2f})"


def _ablation_table(summary: dict[str, Any], headline: str) -> list[str]:
    """The declared ablations: each arm against its reference on the same seeds."""
    rows = summary.get("ablations", [])
    if not rows:
        return []
    out = [
        f"Ablations, paired by training seed ({headline}, last {LAST} evaluations; the mean "
        "difference over seeds with its 95 % t-interval):",
        "",
        "| part | arm | reference | Δ (mean, 95 % CI) | per seed | moved? |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        per_seed = ", ".join(f"{d:+.3g}" for d in row["per_seed"])
        out.append(
            f"| {row['part']} | `{row['arm']}` | `{row['reference']}` | {interval_text(row)} | "
            f"{per_seed} | {moved_word(row)} |"
        )
    return [*out, ""]


def target_share(run: dict[str, Any]) -> float:
    """The share of a run's steps played on the target game: its recorded target slot-sessions
    over all of them (a scheduled share moves during the run), else its configured target slots
    (at least one, ``dicode.student.curriculum``) over all slots; 1 for a target-only run."""
    if run["method"] == "target":
        return 1.0
    counts = run.get("slots")  # as slot_mix reads them: the runner records every kind
    if counts and (played := counts["target"] + counts["new"] + counts["replay"]):
        return counts["target"] / played
    slots = int(run["config"]["student"]["ppo"]["num_slots"])
    fraction = float(run["config"]["student"]["curriculum"]["target_fraction"])
    return num_target_slots(slots, CurriculumConfig(target_fraction=fraction)) / slots


def _span(values: list[float], spec: str) -> str:
    """One value where the seeds agree, else their range (a scheduled share differs by seed)."""
    low, high = format(min(values), spec), format(max(values), spec)
    return low if low == high else f"{low}–{high}"


def trained_share(run: dict[str, Any]) -> float:
    """The share of a literature loop's iterations with a gradient step (robust PLR and ACCEL
    only score their new and edited levels); 1 where every iteration trains."""
    counts = run.get("slots")
    if not counts or "gradient" not in counts:  # only the literature's loops count them
        return 1.0
    played = counts["new"] + counts["replay"] + counts["mutate"]
    return counts["gradient"] / played if played else 1.0


def _read_off_baseline(
    document: dict[str, Any],
    arms: Callable[[dict[str, Any]], bool],
    share: Callable[[dict[str, Any]], float],
    kind: str,
    what: str,
) -> list[str]:
    """The table of ``arms``' figures beside the baseline run of the same seed read off its curve
    (linear between evaluations) at ``share`` of each run's budget — the ``kind`` steps, which
    ``what`` describes; nothing where no arm pairs with a baseline run."""
    runs, baseline = document["runs"], document["baseline"]
    headline = document.get("summary", {}).get("headline", "?")
    base = {r["seed"]: r for r in runs if r["variant"] == baseline and r["method"] == "target"}
    rows = []
    for name in document.get("summary", {}).get("variants", {}):
        mine = [r for r in runs if r["variant"] == name and arms(r)]
        pairs = [
            (r, base[r["seed"]]) for r in mine if r["seed"] in base and base[r["seed"]].get("curve")
        ]
        if not pairs:
            continue
        shares = [share(r) for r, _ in pairs]
        steps = [s * r["budget"]["env_steps"] for s, (r, _) in zip(shares, pairs, strict=True)]
        own = [run_figure(r, headline) for r, _ in pairs]
        read = [
            float(np.interp(at, *np.asarray(b["curve"], float).T))
            for at, (_, b) in zip(steps, pairs, strict=True)
        ]
        gain = statistics.mean(o - r for o, r in zip(own, read, strict=True))
        rows.append(
            f"| {name} | {_span(shares, '.2f')} | {_span(steps, ',.0f')} | "
            f"{statistics.mean(own):.3g} | {statistics.mean(read):.3g} | {gain:+.3g} | "
            f"{len(pairs)} |"
        )
    if not rows:
        return []
    return [
        f"At equal *{kind}* steps: {what.format(headline=headline, baseline=baseline)}",
        "",
        f"| variant | {kind} share | {kind} steps | last {LAST} (mean) | {baseline} at those "
        "steps (mean) | Δ (mean of seeds) | seeds |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
    ]


def _equal_target_steps(document: dict[str, Any]) -> list[str]:
    """Each curriculum arm's figure beside the target-only baseline's own curve at the target
    steps that arm played (its ``target_share``). The literature's loops (DR, robust PLR,
    ACCEL) and the reverse curriculum have no target slot: they are not listed."""
    return _read_off_baseline(
        document,
        lambda r: r["method"] not in ("target", REVERSE_METHOD, *UED_METHODS),
        target_share,
        "target",
        f"each curriculum arm's {{headline}} (last {LAST} evaluations) beside the {{baseline}} "
        "run of the same seed read off its learning curve at the steps the arm played on the "
        "target game (its recorded target slot-sessions; an approximation: that run's step size "
        "was still annealing there).",
    )


def _equal_gradient_steps(document: dict[str, Any]) -> list[str]:
    """Each literature loop's figure beside the baseline's curve at the env steps it trained on
    (its ``trained_share``): how far a budget counted in every rollout holds them back."""
    return _read_off_baseline(
        document,
        lambda r: r["method"] in UED_METHODS and trained_share(r) < 1.0,
        trained_share,
        "trained",
        f"each literature loop that scores some levels without a gradient step, its {{headline}} "
        f"(last {LAST} evaluations) beside the {{baseline}} run of the same seed read off its "
        "learning curve at the env steps the loop took gradient steps on (its recorded "
        "iterations with a gradient step; an approximation: that run's step size was still "
        "annealing there).",
    )


def _trained_levels_table(runs: list[dict[str, Any]]) -> list[str]:
    """What the literature's loops took gradient steps on, early, midway and late (the records'
    ``trace``: one segment per evaluation interval), mean over seeds; empty when no run has one."""
    traced: dict[str, list[list[dict[str, float]]]] = {}
    for run in runs:
        if any("trained_path" in point for point in run.get("trace") or []):
            traced.setdefault(run["variant"], []).append(run["trace"])
    if not traced:
        return []

    def at(traces: list[list[dict[str, float]]], where: float, key: str) -> str:
        values = [t[round(where * (len(t) - 1))].get(key) for t in traces]
        present = [v for v in values if v is not None]
        return f"{statistics.mean(present):.3g}" if present else "—"

    rows = [
        "What the loops took gradient steps on, per evaluation interval (first, middle, last; "
        "mean over seeds): the mean shortest path of the levels played (moves), their walls, "
        "the buffer's mean score at the interval's end (robust PLR and ACCEL) and the reverse "
        "curriculum's rung (the start's distance from the goal at the interval's end).",
        "",
        "| variant | path (first / middle / last) | walls (first / middle / last) "
        "| buffer score (last) | start distance (first / middle / last) | seeds |",
        "|---|---|---|---|---|---|",
    ]
    for name, traces in traced.items():
        path = " / ".join(at(traces, w, "trained_path") for w in (0, 0.5, 1))
        walls = " / ".join(at(traces, w, "trained_walls") for w in (0, 0.5, 1))
        score = at(traces, 1, "buffer_score")
        rung = " / ".join(at(traces, w, "start_distance") for w in (0, 0.5, 1))
        rows.append(f"| {name} | {path} | {walls} | {score} | {rung} | {len(traces)} |")
    return [*rows, ""]


def _mechanisms_table(runs: list[dict[str, Any]]) -> list[str]:
    """Whether issue 39's mechanisms ran, from the DiCode records' trace at the run's end (mean
    over seeds): the target's share of the slots (first / last interval), the share of the
    teacher's attempts aimed at the target (target-derived parents and the rungs of their
    lines), its easier / harder instructions, and the transfer scores (levels credited, mean,
    sample std, share above 0); empty when no run traced them."""
    traced: dict[str, list[list[dict[str, float]]]] = {}
    for run in runs:
        trace = run.get("trace") or []
        if trace and "target_share" in trace[-1]:
            traced.setdefault(run["variant"], []).append(trace)
    if not traced:
        return []

    def mean(values: list[float | None]) -> str:
        present = [v for v in values if v is not None]
        return f"{statistics.mean(present):.3g}" if present else "—"

    def aimed(point: dict[str, float]) -> float | None:
        # Target-derived parents and the rungs of their lines are both aimed at the target.
        on_target = point.get("parents_target", 0) + point.get("parents_target_line", 0)
        total = on_target + point.get("parents_archive", 0)
        return on_target / total if total else None

    rows = [
        "Whether each mechanism ran (the records' trace, mean over seeds): the target's share "
        "of the slots at the first and last evaluation interval, the share of the teacher's "
        "attempts aimed at the target (target-derived parents and their lines' rungs) and its "
        "easier / harder instructions by the end, and the transfer scores by the end.",
        "",
        "| variant | target share (first / last) | aimed parents | easier / harder "
        "| levels credited | transfer mean ± std | transfer > 0 | seeds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, traces in traced.items():
        ends = [t[-1] for t in traces]
        share = f"{mean([t[0].get('target_share') for t in traces])} / "
        share += mean([e.get("target_share") for e in ends])
        ladder = f"{mean([e.get('instruction_easier') for e in ends])} / "
        ladder += mean([e.get("instruction_harder") for e in ends])
        transfer = f"{mean([e.get('transfer_mean') for e in ends])} ± "
        transfer += mean([e.get("transfer_std") for e in ends])
        rows.append(
            f"| {name} | {share} | {mean([aimed(e) for e in ends])} | {ladder} "
            f"| {mean([e.get('transfer_levels_credited') for e in ends])} | {transfer} "
            f"| {mean([e.get('transfer_positive_share') for e in ends])} | {len(traces)} |"
        )
    return [*rows, ""]


def _skill_table(runs: list[dict[str, Any]]) -> list[str]:
    """Mean per-skill figures per variant, the skills that differ most first."""
    variants = sorted({r["variant"] for r in runs})
    means: dict[str, dict[str, float]] = {}
    for name in variants:
        skills = [r["skills"] for r in runs if r["variant"] == name and r["skills"]]
        if skills:
            names: set[str] = set().union(*skills)
            means[name] = {k: statistics.mean(s.get(k, 0.0) for s in skills) for k in names}
    if not means:
        return []
    keys = sorted(set().union(*(m.keys() for m in means.values())))
    spread = {
        k: max(m.get(k, 0.0) for m in means.values()) - min(m.get(k, 0.0) for m in means.values())
        for k in keys
    }
    # Skills no variant ever achieved say nothing; of the others, those that differ most.
    reached = [k for k in keys if any(m.get(k, 0.0) > 0 for m in means.values())]
    shown = sorted(reached, key=lambda k: -spread[k])[:SKILLS_SHOWN]
    header = "| skill | " + " | ".join(means) + " |"
    rows = [header, "|---|" + "---|" * len(means)]
    for key in sorted(shown):
        rows.append(
            f"| {key} | " + " | ".join(f"{m.get(key, 0.0):.2f}" for m in means.values()) + " |"
        )
    title = (
        "Per-skill figures of the target protocol (mean over seeds; of the skills some "
        f"variant reached, the {SKILLS_SHOWN} whose values differ most between variants):"
    )
    return [title, "", *rows]


def _load_line(runs: list[dict[str, Any]]) -> str:
    """The machine's load while the runs trained, where their records kept it: a run that
    shared its cores with more work than they hold costs more CPU time for the same steps."""
    loads = [r["cost"]["machine_load"] for r in runs if r.get("cost", {}).get("machine_load")]
    if not loads:
        return ""
    means = [load["load_average_mean"] for load in loads]
    cores = "/".join(str(n) for n in sorted({int(load["cpus"]) for load in loads}))
    return (
        f" Machine load while training (1-minute load average, mean per run): "
        f"{min(means):.1f}–{max(means):.1f} on {cores} cores ({len(loads)} of {len(runs)} runs "
        "recorded it)."
    )


def _origin(runs: list[dict[str, Any]]) -> str:
    commits = sorted({r["provenance"]["commit"][:10] for r in runs})
    stacks = sorted(
        {", ".join(f"{k} {v}" for k, v in r["provenance"]["versions"].items() if v) for r in runs}
    )
    threads = sorted({json.dumps(r["provenance"]["threads"], sort_keys=True) for r in runs})
    machines = Counter(processor(r["provenance"].get("cpu")) for r in runs)
    commands = sorted({r["command"] for r in runs if r.get("command")})
    dirty = sum(1 for r in runs if r["provenance"].get("tree_dirty"))
    hand = sum(1 for r in runs if edited(r))
    text = (
        f"Runs: {len(runs)}; commits {', '.join(commits)}; stack: {'; '.join(stacks)}; "
        f"threads: {'; '.join(threads)}; processors: "
        + "; ".join(
            f"{name} ({count} run{'s' * (count != 1)})" for name, count in sorted(machines.items())
        )
        + "."
    )
    text += _load_line(runs)
    if commands:
        text += " Commands: " + "; ".join(f"`{c}`" for c in commands) + "."
    else:
        text += " The records predate stored command lines."
    if dirty:
        text += f" **{dirty} run(s) from a dirty tree: to be rerun.**"
    if hand:
        text += f" **{hand} record(s) edited after the runner wrote them: to be rerun.**"
    return text


def processor(cpu: dict[str, Any] | None) -> str:
    """A record's processor in a few words: its model, how many vector extensions it has and the
    widest (records differ in their last bits between machines that differ here)."""
    if cpu is None:
        return "not recorded"
    vector = cpu["vector"]
    widest = next(
        (name for name in ("amx", "avx512", "avx2", "avx", "fma", "sse4")
         if any(flag.startswith(name) for flag in vector)),
        None,
    )  # fmt: skip
    extensions = (
        f"{len(vector)} vector extensions up to {widest}" if widest else "no vector extensions"
    )
    return f"{cpu['model'] or 'unknown model'}, {extensions}"


def rebuild_results(results: Path = RESULTS, figures: Path = FIGURES) -> list[str]:
    """Replace (or append) every judge benchmark's and experiment's section, and redraw every
    experiment's picture into ``figures/plots`` (`benchmarks.results_plots`), each linked from
    its section; returns the names written."""
    text = results.read_text() if results.is_file() else "# Results\n"
    written = []
    plots = write_plots(figures, figures / "plots")
    renderers: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        (name, judge_section) for name in JUDGE_BENCHMARKS
    ]
    renderers += [
        (name, partial(section, picture=_relative(plots.get(name), results.parent),
                       shorter=_shorter_twin(name, figures)))
        for name in ORDER
    ]  # fmt: skip
    for name, render in renderers:
        path = figures / f"{name}.json"
        if not path.is_file():
            continue
        body = render(json.loads(path.read_text()))
        start, end = f"<!-- experiment:{name} -->", f"<!-- /experiment:{name} -->"
        block = f"{start}\n{body}\n{end}"
        if start in text and end in text:
            head, rest = text.split(start, 1)
            _, tail = rest.split(end, 1)
            text = head + block + tail
        else:
            text = text.rstrip("\n") + f"\n\n## {name}\n\n{block}\n"
        written.append(name)
    results.write_text(text)
    return written


def _shorter_twin(name: str, figures: Path) -> dict[str, Any] | None:
    """The figures of ``name``'s shorter-budget twin, where it has one and its file exists."""
    pair = LONGER_BUDGETS.get(name)
    path = None if pair is None else figures / f"{pair.shorter}.json"
    return json.loads(path.read_text()) if path is not None and path.is_file() else None


def _relative(path: Path | None, start: Path) -> str | None:
    """``path`` as a link from a file in ``start`` (markdown links are relative)."""
    return None if path is None else Path(os.path.relpath(path, start)).as_posix()


if __name__ == "__main__":
    print("rebuilt:", ", ".join(rebuild_results()) or "nothing (no experiment file yet)")
