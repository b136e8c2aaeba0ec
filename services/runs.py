"""Opening a service run: the same run row and stored settings for every process."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from typing import Any

from archive_db import ArchiveRepository
from archive_db.records import RunInfo
from dicode import domains
from dicode.settings import RunSettings


def open_service_run(
    repo: ArchiveRepository,
    name: str,
    profile_name: str = "quick",
    *,
    domain: str = "tetris",
    seed: int | None = None,
    teacher: str | None = None,
) -> tuple[RunInfo, RunSettings]:
    """The run ``name`` and its settings: stored ones if it exists, else the ``domain``'s
    profile's.

    A new run stores its settings as its config (so a restart, or another service, reads the
    same). ``teacher`` overrides the generator's teacher for this process only.
    """
    existing = repo.runs.find(name)
    if existing is not None and existing.config:
        settings = stored_settings(existing.config)
        run = existing
    else:
        settings = domains.profile(domains.get(domain), profile_name, seed=seed)
        run = repo.runs.open(
            name, domain=settings.domain, seed=settings.seed, config=settings.to_dict()
        )
        settings = stored_settings(run.config) if run.config else settings
    if teacher:
        settings = replace(settings, generator=replace(settings.generator, teacher=teacher))
    return run, settings


def stored_settings(config: dict[str, Any]) -> RunSettings:
    """A run's stored config read back by the world it names."""
    return RunSettings.from_dict(config, domains.get(config["domain"]))


def parse_with_db(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """``parser``'s arguments (it has ``--db``); a usage error (exit 2) when no archive URL came
    by ``--db`` or ``DICODE_DB_URL``."""
    args = parser.parse_args(argv)
    if not args.db:
        parser.error("--db (or DICODE_DB_URL) is required")
    return args


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every service process opens its run with (each also read from the
    environment, as docker compose sets them): ``--db``, ``--run``, ``--profile``, ``--domain``."""
    parser.add_argument("--db", default=os.environ.get("DICODE_DB_URL"), help="archive URL")
    parser.add_argument("--run", default=os.environ.get("DICODE_RUN", "main"), help="run name")
    parser.add_argument("--profile", default=os.environ.get("DICODE_PROFILE", "quick"))
    parser.add_argument(
        "--domain",
        default=os.environ.get("DICODE_DOMAIN", "tetris"),
        help="domain of a new run (an existing run keeps its own)",
    )
