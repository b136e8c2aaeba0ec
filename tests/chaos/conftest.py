"""The chaos suite's pieces: service processes started as compose starts them, a private
PostgreSQL cluster the tests may restart, and snapshots of the archive's rows.

Every case asserts on rows (levels, attempts, evaluations, events, checkpoints), never on logs;
the logs of each process are kept in its tmp folder only to explain a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from archive_db import ArchiveRepository
from archive_db.engine import create_archive_engine
from dicode.settings import RunSettings
from services.ray_env import jax_cache_env
from tests.services.conftest import TINY, wait_for
from tests.support.local_server import free_port

ROOT = Path(__file__).resolve().parents[2]
PG_BIN = sorted(Path("/usr/lib/postgresql").glob("*/bin"))


# ---------------------------------------------------------------------- service processes
class Service:
    """One service process (``python -m services.<name> …``), in its own process group."""

    def __init__(self, name: str, args: list[str], workdir: Path, env: dict[str, str]) -> None:
        self.name = name
        self.args = args
        self.workdir = workdir
        self.env = env
        self.starts = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def log(self) -> Path:
        return self.workdir / f"{self.name}-{self.starts}.log"

    def start(self, *extra: str) -> Service:
        self.starts += 1
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", f"services.{self.name}", *self.args, *extra],
                cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,  # a group of its own: teardown can end all of it
            )
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""

    def check_alive(self) -> None:
        """Fail with the process's own words if it has exited."""
        if not self.alive():
            code = None if self.process is None else self.process.returncode
            raise AssertionError(f"{self.name} exited with {code}:\n{self.tail()}")

    def kill9(self) -> None:
        """``kill -9`` of the service's main process only (its children must cope alone)."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def wait(self, timeout: float) -> int:
        assert self.process is not None
        return self.process.wait(timeout=timeout)

    def group_alive(self) -> bool:
        """Whether any process of the service's group (Ray's raylet, workers…) is left."""
        try:
            os.killpg(self.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def end(self) -> None:
        """Teardown: SIGKILL whatever is left of the group."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


def service_env(workdir: Path, **extra: str) -> dict[str, str]:
    """The environment compose would give a service, plus what a shared test machine needs."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **jax_cache_env())
    # Ray workers inherit the niceness of the machine's other jobs unless told otherwise.
    env.setdefault("RAY_worker_niceness", "0")
    env["RAY_AUTH_MODE"] = "disabled"  # a single trusted machine; no token file to share
    env["DICODE_HEARTBEAT"] = str(workdir / "heartbeat")
    env.pop("RAY_ADDRESS", None)  # each student starts its own Ray, as the compose head does
    # A dashboard port of its own: 8265 may be another cluster's on a shared machine.
    env["DICODE_DASHBOARD_PORT"] = str(free_port())
    env.update(extra)
    return env


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Callable[..., Service]]:
    """``services(name, *args, env={…})`` makes a service (``env``: variables on top of
    `service_env`); all are ended at teardown."""
    made: list[Service] = []

    def make(name: str, *args: str, env: dict[str, str] | None = None) -> Service:
        workdir = tmp_path / f"{name}-{len(made)}"
        workdir.mkdir()
        service = Service(name, list(args), workdir, service_env(workdir, **(env or {})))
        made.append(service)
        return service

    yield make
    for service in made:
        service.end()


# ---------------------------------------------------------------------- archive rows
@dataclass(frozen=True)
class Rows:
    """One run's rows, by id, reduced to the columns nothing may change once written.

    Levels keep their immutable columns (the student updates status, rates and sampling);
    attempts, evaluations, events, checkpoints and edges are never updated.
    """

    levels: dict[int, tuple[Any, ...]]
    attempts: dict[int, tuple[Any, ...]]
    evaluations: dict[int, tuple[Any, ...]]
    events: dict[int, tuple[Any, ...]]
    checkpoints: dict[int, tuple[Any, ...]]
    edges: frozenset[tuple[int, int]] = field(default_factory=frozenset)

    def counts(self) -> dict[str, int]:
        return {
            "levels": len(self.levels),
            "attempts": len(self.attempts),
            "evaluations": len(self.evaluations),
            "events": len(self.events),
            "checkpoints": len(self.checkpoints),
            "edges": len(self.edges),
        }

    def attempts_where(self, **equal: Any) -> list[dict[str, Any]]:
        """Attempts as dicts (see `_ATTEMPT_COLUMNS`) whose columns equal ``equal``."""
        rows = [dict(zip(_ATTEMPT_COLUMNS, (i, *r), strict=True)) for i, r in self.attempts.items()]
        return [r for r in rows if all(r[k] == v for k, v in equal.items())]


_TABLES: dict[str, tuple[str, ...]] = {
    "levels": ("content_hash", "code", "teacher", "created_at"),
    "generation_attempts": (
        "teacher", "verdict", "level_id", "parent_id", "failing_stage", "error", "code",
        "created_at",
    ),
    "evaluations": ("level_id", "student_iteration", "episodes", "successes", "created_at"),
    "events": ("kind", "payload", "created_at"),
    "checkpoints": ("path", "iteration", "created_at"),
}
_ATTEMPT_COLUMNS = ("id", *_TABLES["generation_attempts"])


def snapshot(url: str, run_id: int) -> Rows:
    """Read the run's rows straight from the database (no repository code in between), all
    in one read transaction: services keep writing, and the tables must agree."""
    # The archive's engine settings: SQLite then really opens a transaction (pysqlite alone
    # would not), a consistent WAL snapshot; PostgreSQL needs REPEATABLE READ for one.
    base = create_archive_engine(url)
    engine = base
    if base.dialect.name == "postgresql":
        engine = base.execution_options(isolation_level="REPEATABLE READ")
    try:
        with engine.begin() as conn:
            tables: dict[str, dict[int, tuple[Any, ...]]] = {}
            for table, columns in _TABLES.items():
                query = sa.text(
                    f"SELECT id, {', '.join(columns)} FROM {table} WHERE run_id = :run ORDER BY id"
                )
                tables[table] = {
                    int(row[0]): tuple(_plain(v) for v in row[1:])
                    for row in conn.execute(query, {"run": run_id})
                }
            edges = frozenset(
                (int(p), int(c))
                for p, c in conn.execute(
                    sa.text("SELECT parent_id, child_id FROM lineage_edges WHERE run_id = :run"),
                    {"run": run_id},
                )
            )
    finally:
        base.dispose()
    return Rows(
        tables["levels"], tables["generation_attempts"], tables["evaluations"],
        tables["events"], tables["checkpoints"], edges,
    )


def _plain(value: Any) -> Any:
    """Hashable, backend-neutral column values (JSON as sorted text, times as ISO text)."""
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    if hasattr(value, "isoformat"):
        return value.replace(tzinfo=None).isoformat()
    return value


def assert_kept(before: Rows, after: Rows) -> None:
    """Every row committed before is still there, unchanged."""
    for name in ("levels", "attempts", "evaluations", "events", "checkpoints"):
        old, new = getattr(before, name), getattr(after, name)
        lost = sorted(set(old) - set(new))
        assert not lost, f"{len(lost)} {name} lost: ids {lost[:10]}"
        changed = [i for i in old if old[i] != new[i]]
        assert not changed, f"{name} changed after the fault: ids {changed[:10]}"
    assert before.edges <= after.edges, f"edges lost: {sorted(before.edges - after.edges)[:10]}"


def assert_whole(rows: Rows) -> None:
    """No half-written attempt: an accepted attempt has its level, a level has its attempt,
    a rejected attempt has none; every edge joins two levels of the run."""
    made = {r["level_id"] for r in rows.attempts_where(verdict="accepted")}
    orphans = [r["id"] for r in rows.attempts_where(verdict="accepted")
               if r["level_id"] not in rows.levels]
    assert not orphans, f"accepted attempts without their level: {orphans[:10]}"
    assert not (set(rows.levels) - made), (
        f"levels without an accepted attempt: {sorted(set(rows.levels) - made)[:10]}"
    )
    linked = [r["id"] for r in rows.attempts_where(verdict="rejected") if r["level_id"]]
    assert not linked, f"rejected attempts pointing at a level: {linked[:10]}"
    dangling = [e for e in rows.edges if not set(e) <= set(rows.levels)]
    assert not dangling, f"edges to levels that do not exist: {dangling[:10]}"


def count_rows(url: str, table: str, run_id: int) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            query = sa.text(f"SELECT count(*) FROM {table} WHERE run_id = :run")
            return int(conn.execute(query, {"run": run_id}).scalar_one())
    finally:
        engine.dispose()


# ---------------------------------------------------------------------- private PostgreSQL
class PrivatePostgres:
    """A PostgreSQL cluster of the test's own (initdb in a tmp dir, a free port), run as the
    ``postgres`` user when we are root (postgres refuses to run as root): the shared server at
    127.0.0.1:5432 is never touched."""

    def __init__(self) -> None:
        if not PG_BIN:
            pytest.skip("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
        self.bin = PG_BIN[-1]
        self.port = free_port()
        # Not under pytest's tmp_path: that is private to root, and the server runs as postgres.
        self.root = Path(tempfile.mkdtemp(prefix="dicode-chaos-pg-", dir="/tmp"))
        self.data = self.root / "data"
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            if shutil.which("runuser") is None:
                pytest.skip("running as root without runuser: cannot start postgres as non-root")
            shutil.chown(self.root, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _ctl(self, *args: str, timeout: float = 120) -> None:
        # The server pg_ctl starts keeps its output streams: a file, never a pipe we wait on.
        log = self.root / "server.log"
        command = [*self.as_user, str(self.bin / "pg_ctl"), "-D", str(self.data), "-w",
                   "-l", str(log), *args]
        with (self.root / "pg_ctl.out").open("ab") as out:
            done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"pg_ctl {' '.join(args)} failed; see {log}")

    def start(self) -> PrivatePostgres:
        """initdb on first use, then start the server (the same data on a later call)."""
        if not self.data.exists():
            initdb = [*self.as_user, str(self.bin / "initdb"), "-D", str(self.data),
                      "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]
            subprocess.run(initdb, check=True, capture_output=True, timeout=120)
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c max_connections=100")
        self._ctl("-o", options, "start")
        return self

    def restart(self) -> None:
        """``pg_ctl restart -m fast``: every client connection is cut, then it comes back."""
        self._ctl("-m", "fast", "restart")

    def stop_fast(self) -> None:
        """``pg_ctl stop -m fast``: down until `start` (an outage of a chosen length)."""
        self._ctl("-m", "fast", "stop")

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self._ctl("-m", "immediate", "stop", timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def private_pg() -> Iterator[PrivatePostgres]:
    server = PrivatePostgres().start()
    yield server
    server.stop()


@pytest.fixture
def private_pg_url(private_pg: PrivatePostgres) -> Iterator[str]:
    """A fresh database on the private cluster for each test."""
    name = f"chaos_{os.getpid()}_{int(time.monotonic() * 1000)}"
    engine = sa.create_engine(private_pg.url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    yield private_pg.url.rsplit("/", 1)[0] + f"/{name}"



# ---------------------------------------------------------------------- runs
RUN = "chaos"


def new_run(url: str, settings: RunSettings = TINY, name: str = RUN) -> int:
    """Create the run the services will open by name, with ``settings`` as its config."""
    repo = ArchiveRepository.open(url)
    try:
        return repo.runs.create(name, domain="tetris", seed=0, config=settings.to_dict()).id
    finally:
        repo.close()


__all__ = ["TINY", "free_port", "wait_for"]
