"""PostgreSQL restarted (``pg_ctl restart -m fast``), then stopped for a few seconds, under a
running generator and API.

The private cluster of `conftest.PrivatePostgres` is restarted, never the shared server. The
services must wait and reconnect in the same process (no crash, hence no crash loop under
compose's ``restart: unless-stopped``); the time they were blind is measured and bounded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from archive_db.kinds import SESSION_EVENT, TARGET_EVENT
from tests.chaos.conftest import (
    RUN,
    PrivatePostgres,
    Service,
    assert_kept,
    assert_whole,
    count_rows,
    free_port,
    new_run,
    snapshot,
    wait_for,
)

pytestmark = pytest.mark.chaos

SEEDS = 11
BLIND_BOUND_S = 60.0  # from the database's return to a service's next stored row
OUTAGE_S = 5.0  # the second fault: the server stopped this long, then started


def _first_row_after(
    url: str, run_id: int, since: datetime, table: str = "generation_attempts", kind: str = ""
) -> datetime | None:
    """When the first row of ``table`` (events: of ``kind``) created after ``since`` (UTC) was
    stored, if any yet."""
    where = " AND kind = :kind" if kind else ""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            query = sa.text(f"SELECT min(created_at) FROM {table} "
                            f"WHERE run_id = :run AND created_at > :since{where}")
            params = {"run": run_id, "since": since, "kind": kind}
            value = conn.execute(query, params).scalar_one()
    except sa.exc.OperationalError:
        return None  # still down
    finally:
        engine.dispose()
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _health(base: str) -> int:
    try:
        return httpx.get(f"{base}/healthz", timeout=5).status_code
    except httpx.HTTPError:
        return 0


def _blind_through(
    url: str, run_id: int, watched: list[Service], fault: Callable[[], None],
    table: str = "generation_attempts", kind: str = "",
) -> tuple[float, float]:
    """Run ``fault`` on the database; returns (its seconds, the blind seconds: from the fault's
    start to the first row of ``table``/``kind`` stored once the database was back)."""
    down_at = datetime.now(UTC)
    began = time.monotonic()
    fault()
    fault_s = time.monotonic() - began
    back_at = datetime.now(UTC)  # rows committed while the server was going down do not count

    def written() -> datetime | None:
        for service in watched:
            service.check_alive()
        return _first_row_after(url, run_id, back_at, table, kind)

    wait_for(written, BLIND_BOUND_S + OUTAGE_S + 60, f"a {table} row after the fault", poll=0.2)
    first = written()
    assert first is not None
    return fault_s, (first - down_at).total_seconds()


def _outage(server: PrivatePostgres, during: Callable[[], None] = lambda: None) -> None:
    """The server stopped (``-m fast``) for ``OUTAGE_S`` seconds, then started again."""
    server.stop_fast()
    time.sleep(OUTAGE_S)
    during()
    server.start()


def test_postgres_restart_under_running_services(
    private_pg: PrivatePostgres, private_pg_url: str, services: Callable[..., Service]
) -> None:
    url = private_pg_url
    run_id = new_run(url)
    generator = services("generator", "--db", url, "--run", RUN).start()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    api = services("api", "--db", url, "--port", str(port), "--log-level", "warning").start()
    wait_for(
        lambda: generator.check_alive() or count_rows(url, "generation_attempts", run_id)
        >= SEEDS + 2,
        240, "the generator's first generated attempts",
    )
    wait_for(lambda: api.check_alive() or _health(base) == 200, 120, "the API to answer")
    pids = (generator.pid, api.pid)
    before = snapshot(url, run_id)

    restart_s, blind_restart = _blind_through(url, run_id, [generator], private_pg.restart)

    def unhealthy() -> None:  # the API says the archive is unreachable, and lives
        assert _health(base) == 503

    outage_s, blind_outage = _blind_through(
        url, run_id, [generator], lambda: _outage(private_pg, unhealthy)
    )
    wait_for(lambda: api.check_alive() or _health(base) == 200, 60, "the API to answer again")
    served = httpx.get(f"{base}/api/runs/{RUN}/attempts", params={"limit": 500}, timeout=30)
    counted = count_rows(url, "generation_attempts", run_id)
    # A few more attempts, to see generation go on rather than one lucky write.
    wait_for(
        lambda: generator.check_alive()
        or count_rows(url, "generation_attempts", run_id) >= counted + 3,
        120, "generation to go on after the outage",
    )

    print(f"\npg_ctl restart -m fast took {restart_s:.1f} s, the generator was blind "
          f"{blind_restart:.1f} s; a {outage_s:.1f} s outage (stop -m fast, start) left it "
          f"blind {blind_outage:.1f} s (fault start → its first attempt stored after it)")
    assert (generator.pid, api.pid) == pids and generator.alive() and api.alive()
    assert blind_restart <= restart_s + BLIND_BOUND_S
    assert blind_outage <= outage_s + BLIND_BOUND_S
    assert served.status_code == 200
    generator.kill9()
    after = snapshot(url, run_id)
    assert_kept(before, after)
    assert_whole(after)
    assert len(after.attempts_where(teacher="seed")) == SEEDS
    assert {a["id"] for a in served.json()["items"]} <= set(after.attempts)


def _wait_for_target_eval(
    url: str, run_id: int, student: Service, since: datetime, after: str
) -> None:
    wait_for(lambda: student.check_alive()
             or _first_row_after(url, run_id, since, "events", TARGET_EVENT),
             120, f"a target evaluation after the {after}")


@pytest.mark.slow
def test_postgres_outage_under_a_running_student(
    private_pg: PrivatePostgres, private_pg_url: str, services: Callable[..., Service],
    tmp_path: Path,
) -> None:
    """The student process (student and evaluator actors) and a generator through a restart
    and an outage: same processes after, sessions and target evaluations go on."""
    url = private_pg_url
    run_id = new_run(url)
    generator = services("generator", "--db", url, "--run", RUN).start()
    student = services("student", "--db", url, "--run", RUN, "--run-dir", str(tmp_path / "runs"))
    student.start()
    wait_for(
        lambda: student.check_alive() or generator.check_alive() or (
            count_rows(url, "checkpoints", run_id) >= 2
            and _first_row_after(url, run_id, datetime(2000, 1, 1, tzinfo=UTC), "events",
                                 TARGET_EVENT)
        ),
        400, "the student's checkpoints and a target evaluation",
    )
    pids = (generator.pid, student.pid)
    before = snapshot(url, run_id)
    watched = [generator, student]
    blind: dict[str, float] = {}
    for name, fault in (("restart", private_pg.restart), ("outage", lambda: _outage(private_pg))):
        fault_s, blind[name] = _blind_through(url, run_id, watched, fault, "events",
                                              SESSION_EVENT)
        assert blind[name] <= fault_s + BLIND_BOUND_S
        # The evaluator too: else it could have ended silently while the student went on.
        _wait_for_target_eval(url, run_id, student, datetime.now(UTC), name)
    print("\nstudent blind (fault start → its first session event after it): "
          + ", ".join(f"{k} {v:.1f} s" for k, v in blind.items()))
    assert (generator.pid, student.pid) == pids and generator.alive() and student.alive()
    student.kill9()
    generator.kill9()
    after = snapshot(url, run_id)
    assert_kept(before, after)
    assert_whole(after)
