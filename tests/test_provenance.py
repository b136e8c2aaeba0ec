"""A figure's provenance names its commit, in a git checkout and in a copy without git."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from dicode import provenance


def test_a_checkout_records_its_commit_and_whether_it_is_dirty() -> None:
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=provenance.ROOT, capture_output=True, text=True
    ).stdout.strip()
    record = provenance.provenance()
    assert record["commit"] == head
    assert isinstance(record["tree_dirty"], bool)


def test_a_copy_without_git_takes_the_commit_its_copier_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The module finds its tree from its own path: a copy two folders down has no git above it.
    copy = tmp_path / "tree" / "dicode" / "provenance.py"
    copy.parent.mkdir(parents=True)
    shutil.copy(provenance.__file__, copy)
    spec = importlib.util.spec_from_file_location("copied_provenance", copy)
    assert spec is not None and spec.loader is not None
    copied = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copied)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))

    monkeypatch.delenv(provenance.COMMIT_VARIABLE, raising=False)
    unnamed = copied.provenance()
    assert (unnamed["commit"], unnamed["tree_dirty"]) == ("unknown", None)

    monkeypatch.setenv(provenance.COMMIT_VARIABLE, "0123456789abcdef")
    named = copied.provenance()
    assert (named["commit"], named["tree_dirty"]) == ("0123456789abcdef", None)


def test_the_load_meter_samples_while_its_block_runs_and_stops_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loads = iter([1.0, 3.0] + [2.0] * 10_000)  # the kernel's 1-minute figures, scripted
    monkeypatch.setattr(provenance.os, "getloadavg", lambda: (next(loads), 0.0, 0.0))
    with provenance.LoadMeter(every_s=0.01) as meter:
        time.sleep(0.2)
    taken = len(meter.samples)
    assert taken >= 3  # the first at entry, more every 10 ms, the last at exit
    assert "load-meter" not in {thread.name for thread in threading.enumerate()}
    time.sleep(0.05)
    assert len(meter.samples) == taken  # nothing sampled after the block
    figures = meter.figures()
    assert figures["load_average_max"] == 3.0 and figures["cpus"] == os.cpu_count()
    assert figures["load_average_mean"] == round(sum(meter.samples) / taken, 2)
