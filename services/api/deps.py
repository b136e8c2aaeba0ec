"""What routes receive: the repository (from ``app.state``), the run named in the path, the
experiments' figures directory (``app.state``) and the experiment named in the path, and the
bounded parameter types every route shares.

Bounds keep every value inside what both backends can take: an out-of-range id, offset or a
control character in a text filter is a 422 before any SQL runs.
"""

from __future__ import annotations

import re
from pathlib import Path as FilePath
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Path, Query, Request

from archive_db import ArchiveRepository
from archive_db.records import RunInfo
from services.experiment_view import UnknownExperiment, experiment_document

MAX_ID = 2**63 - 1  # the largest key of a 64-bit column (BIGINT; SQLite INTEGER)
MAX_PAGE = 500
MAX_OFFSET = 10**9  # far beyond any archive's size, far inside every backend's integer range
MAX_TEXT = 200  # the longest name a text column (teacher, stage, run name) holds
# No control characters (C0, DEL, C1): PostgreSQL refuses NUL in text, and none is a name.
PRINTABLE = r"^[^\x00-\x1f\x7f-\x9f]+$"
_NUMERIC_ID = re.compile(r"[0-9]{1,19}")


async def get_repository(request: Request) -> ArchiveRepository:
    # async: only reads app state, so FastAPI need not hand it to the thread pool.
    repository: ArchiveRepository = request.app.state.repository
    return repository


Repository = Annotated[ArchiveRepository, Depends(get_repository)]


async def get_figures(request: Request) -> FilePath:
    figures: FilePath = request.app.state.figures
    return figures


Figures = Annotated[FilePath, Depends(get_figures)]  # the experiments' figures files
ExperimentName = Annotated[
    str,
    Path(max_length=MAX_TEXT, pattern=PRINTABLE, description="a name GET /api/experiments lists"),
]


def selected_experiment(name: ExperimentName, figures: Figures) -> dict[str, Any]:
    """The experiment document named in the path (404 for a name the listing lacks)."""
    try:
        return experiment_document(figures, name)
    except UnknownExperiment as error:
        raise HTTPException(404, str(error)) from None


SelectedExperiment = Annotated[dict[str, Any], Depends(selected_experiment)]

RunKey = Annotated[
    str,
    Path(max_length=MAX_TEXT, pattern=PRINTABLE, description="run name or numeric id"),
]
RecordId = Annotated[int, Path(ge=1, le=MAX_ID)]
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE, description="page size")]
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET, description="rows skipped (oldest first)")]
TextFilter = Annotated[
    str | None, Query(max_length=MAX_TEXT, pattern=PRINTABLE, description="exact match")
]


def selected_run(run: RunKey, repo: Repository) -> RunInfo:
    """The run named in the path, by name or numeric id (`NotFoundError` → 404)."""
    if _NUMERIC_ID.fullmatch(run) and int(run) <= MAX_ID:
        return repo.runs.get(int(run))
    return repo.runs.get(run)


SelectedRun = Annotated[RunInfo, Depends(selected_run)]
