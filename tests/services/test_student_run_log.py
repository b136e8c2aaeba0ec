"""The service's student writes its run's TensorBoard log; the run's setting turns it off.

(A resumed log, continued from its checkpoint, is `tests/student/test_run_log.py`.)"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from archive_db import ArchiveRepository
from services.student.sessions import ArchiveStudent
from tests.services.conftest import TINY, new_run

SESSION_STEPS = TINY.student.iterations_per_session * TINY.student.ppo.batch_size
SLOTS = TINY.student.ppo.num_slots


def _read(folder: Path) -> dict[str, list[tuple[int, float]]]:
    events = EventAccumulator(str(folder))
    events.Reload()
    return {
        tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]
    }


def test_every_session_is_logged_at_its_env_steps(tmp_path: Path) -> None:
    repo = ArchiveRepository.open(f"sqlite:///{tmp_path / 'archive.sqlite'}")
    student = ArchiveStudent(repo, new_run(repo), tmp_path, TINY)
    student.session()
    student.session()
    student.close()
    logged = _read(tmp_path / "tensorboard")
    steps = [SESSION_STEPS, 2 * SESSION_STEPS]
    for tag in ("ppo/entropy", "ppo/value_loss", "train/env_steps_per_s", "slots/target_share"):
        assert [step for step, _ in logged[tag]] == steps, tag
    assert all(value > 0 for _, value in logged["train/env_steps_per_s"])
    # An empty archive: every slot-session plays the target game (counted since the start).
    assert [value for _, value in logged["slots/target"]] == [SLOTS, 2 * SLOTS]
    assert [value for _, value in logged["slots/new"]] == [0, 0]
    repo.close()


def test_the_runs_setting_turns_the_log_off(tmp_path: Path) -> None:
    repo = ArchiveRepository.open(f"sqlite:///{tmp_path / 'archive.sqlite'}")
    settings = replace(TINY, tensorboard=False)
    run_id = new_run(repo, settings=settings)
    ArchiveStudent(repo, run_id, tmp_path, settings).session()
    assert (tmp_path / "checkpoints").is_dir() and not (tmp_path / "tensorboard").exists()
    repo.close()
