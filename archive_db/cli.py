"""`dicode archive …`: inspect and export an archive database from the shell."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import networkx as nx
import typer
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from archive_db import ArchiveError, ArchiveRepository
from archive_db.records import LevelInfo
from dicode.archive.export import graph_json

app = typer.Typer(no_args_is_help=True, help="Inspect and export the level archive.")

DbOption = Annotated[
    str,
    typer.Option(
        "--db",
        help="SQLAlchemy URL of the archive, e.g. sqlite:///runs/<name>/archive.sqlite or "
        "postgresql+psycopg://user@host:5432/db",
    ),
]
RunOption = Annotated[
    str | None, typer.Option("--run", help="Only this run (name); default: every run.")
]


class ExportFormat(StrEnum):
    graphml = "graphml"
    json = "json"


def _open(url: str) -> ArchiveRepository:
    """Open an existing archive or exit with a clear message (never create one by accident)."""
    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise _fail(f"not a database URL: {url!r} ({error})") from error
    if parsed.get_backend_name() == "sqlite":
        path = parsed.database or ""
        if path in ("", ":memory:") or not Path(path).is_file():
            raise _fail(f"no archive at {url} (the SQLite file does not exist)")
    try:
        return ArchiveRepository.open(url)
    except (SQLAlchemyError, ValueError) as error:
        raise _fail(f"cannot open the archive at {url}: {error}") from error


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def _run_ids(repo: ArchiveRepository, run: str | None) -> list[int]:
    if run is None:
        return [r.id for r in repo.runs.all()]
    found = repo.runs.find(run)
    if found is None:
        raise _fail(f"no run named {run!r} in the archive")
    return [found.id]


@app.command()
def stats(
    db: DbOption,
    run: RunOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Counts of levels, attempts (accepted/rejected), edges, active levels and status letters."""
    repo = _open(db)
    try:
        run_ids = _run_ids(repo, run)
        summary = repo.statistics.counts(run_ids[0] if run is not None else None).as_dict()
    except (ArchiveError, SQLAlchemyError) as error:
        raise _fail(str(error)) from error
    finally:
        repo.close()
    if as_json:
        typer.echo(json.dumps(summary))
        return
    for key in ("levels", "accepted", "rejected", "edges", "active"):
        typer.echo(f"{key:>9}: {summary[key]}")
    letters = "  ".join(f"{k}={v}" for k, v in summary["by_status"].items())
    typer.echo(f"   status: {letters}")


@app.command()
def export(
    db: DbOption,
    out: Annotated[Path, typer.Option("--out", help="File to write.")],
    fmt: Annotated[ExportFormat, typer.Option("--format", help="graphml or json.")] = (
        ExportFormat.json
    ),
    run: RunOption = None,
) -> None:
    """Write the lineage graph (levels with code and description, parent → child edges)."""
    repo = _open(db)
    try:
        graph = _lineage_graph(repo, _run_ids(repo, run))
    except (ArchiveError, SQLAlchemyError) as error:
        raise _fail(str(error)) from error
    finally:
        repo.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    if fmt is ExportFormat.graphml:
        nx.write_graphml(graph, tmp)
    else:
        tmp.write_text(json.dumps(graph_json(graph), indent=1))
    tmp.replace(out)  # atomic: a reader never sees half a file
    typer.echo(
        f"wrote {graph.number_of_nodes()} levels and {graph.number_of_edges()} edges to {out}"
    )


def _lineage_graph(repo: ArchiveRepository, run_ids: list[int]) -> nx.DiGraph:
    graph = nx.DiGraph()
    for run_id in run_ids:
        run_name = repo.runs.get(run_id).name
        for level in repo.list_levels(run_id):
            graph.add_node(level.id, **_node_attributes(level, run_name))
        for edge in repo.feed.snapshot(run_id).edges:
            graph.add_edge(edge.parent, edge.child)
    return graph


def _node_attributes(level: LevelInfo, run_name: str) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "run": run_name,
        "domain": level.domain,
        "name": level.name,
        "teacher": level.teacher,
        "status": level.status,
        "success_rate": level.success_rate,
        "score": level.score,
        "active": level.active,
        "times_sampled": level.times_sampled,
        "last_sampled": level.last_sampled,
        "created_iteration": level.created_iteration,
        "created_at": level.created_at.isoformat(),
        "content_hash": level.content_hash,
        "description": level.description,
        "code": level.code,
    }
    # GraphML has no null: leave unknown values out.
    return {k: v for k, v in attributes.items() if v is not None}
