"""Shared pieces of the service tests: tiny run settings, archives, one warm validator."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest
import uvicorn

from archive_db import ArchiveRepository
from dicode import domains
from dicode.archive.config import ArchiveConfig
from dicode.domains.tetris.student.config import PPOConfig
from dicode.levels.pipeline import Validator
from dicode.settings import EvaluatorSettings, GeneratorSettings, RunSettings, StudentSettings
from tests.support.local_server import free_port

# Small enough to compile and train in seconds on 2 busy cores.
TINY = RunSettings(
    profile="test",
    generator=GeneratorSettings(in_flight=2, max_untrained=100, pool_size=4, rollout_steps=40),
    student=StudentSettings(
        ppo=PPOConfig(
            num_slots=3,
            envs_per_slot=4,
            pool_size=4,
            num_steps=8,
            update_epochs=1,
            num_minibatches=2,
            column_features=4,
            row_features=2,
            hidden=8,
            train_piece_cap=100,
        ),
        iterations_per_session=2,
        checkpoint_every=1,
    ),
    evaluator=EvaluatorSettings(games=4, max_steps=50, every_s=1.0),
    archive=ArchiveConfig(active_capacity=20),
)


def wait_for(predicate: Callable[[], object], timeout: float, what: str, poll: float = 1.0) -> None:
    """Poll ``predicate`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.time() + timeout
    while not predicate():
        if time.time() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(poll)


def new_run(repo: ArchiveRepository, name: str = "test", settings: RunSettings = TINY) -> int:
    """A run storing ``settings`` as its config (what every service reads back)."""
    return repo.runs.create(name, domain="tetris", seed=0, config=settings.to_dict()).id


@pytest.fixture(scope="session")
def validator() -> Iterator[Validator]:
    """One warm sandbox pool and compiled rollout function for the whole session."""
    g = TINY.generator
    with Validator(
        domains.get("tetris"), pool_size=g.pool_size, warm=1, rollout_steps=g.rollout_steps
    ) as v:
        yield v


class ServerThread:
    """A real uvicorn server on a free port, in a thread of the test process."""

    def __init__(self, app: object) -> None:
        self.port = free_port()
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")  # type: ignore[arg-type]
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.time() + 30
        while not self.server.started:
            if time.time() > deadline:
                raise RuntimeError("uvicorn did not start within 30 s")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
