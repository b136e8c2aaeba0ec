"""A figure's provenance names its commit, in a git checkout and in a copy without git."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
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
