"""`kill -9` of the generator process mid-work, then a restart (as compose restarts it).

Nothing committed is lost or changed, no attempt is half-written, and the restarted generator
makes only new attempts: the seeds are not recorded again and exactly the attempts it was asked
for are added (those in flight at the kill were never written, so they are simply made anew).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from tests.chaos.conftest import (
    RUN,
    Service,
    assert_kept,
    assert_whole,
    count_rows,
    new_run,
    snapshot,
    wait_for,
)

pytestmark = pytest.mark.chaos

SEEDS = 11  # the Tetris seed levels
MORE = 3  # attempts the restarted generator is asked for


def _kill_mid_work_then_restart(url: str, services: Callable[..., Service]) -> None:
    run_id = new_run(url)
    generator = services("generator", "--db", url, "--run", RUN).start()
    # Mid-work: seeded, generated attempts being written, two more in flight (in_flight=2).
    wait_for(
        lambda: generator.check_alive() or count_rows(url, "generation_attempts", run_id)
        >= SEEDS + 2,
        240, "the generator's first generated attempts",
    )
    generator.kill9()
    before = snapshot(url, run_id)
    assert_whole(before)

    started = time.monotonic()
    generator.start("--max-attempts", str(MORE))
    assert generator.wait(240) == 0, generator.tail()
    after = snapshot(url, run_id)
    print(f"\nrestarted generator: {MORE} attempts in {time.monotonic() - started:.1f} s; "
          f"rows before {before.counts()}, after {after.counts()}")

    assert_kept(before, after)
    assert_whole(after)
    assert len(after.attempts) == len(before.attempts) + MORE  # only new work, exactly
    assert len(after.attempts_where(teacher="seed")) == SEEDS  # seeds not redone
    new = [a for i, a in after.attempts.items() if i not in before.attempts]
    assert all(a[0] == "mutation" for a in new)


def test_generator_kill_9_sqlite(sqlite_url: str, services: Callable[..., Service]) -> None:
    _kill_mid_work_then_restart(sqlite_url, services)


@pytest.mark.slow
def test_generator_kill_9_postgres(
    private_pg_url: str, services: Callable[..., Service]
) -> None:
    _kill_mid_work_then_restart(private_pg_url, services)
