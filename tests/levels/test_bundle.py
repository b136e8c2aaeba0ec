"""Level bundles: content hashing, identity and storage round trips."""

from __future__ import annotations

import numpy as np
import pytest

from dicode.levels.bundle import LevelBundle, source_hash


def _pool(fill: int = 0, k: int = 4) -> dict[str, np.ndarray]:
    board = np.zeros((k, 20, 10), np.uint8)
    board[:, 0, :fill] = 1
    return {
        "board": board,
        "piece_weights": np.full((k, 7), 1 / 7, np.float32),
        "sequence": np.full((k, 64), -1, np.int32),
        "goal_lines": np.zeros(k, np.int32),
        "goal_pieces": np.zeros(k, np.int32),
    }


def _bundle(pool: dict[str, np.ndarray], source: str = "a", description: str = "d") -> LevelBundle:
    return LevelBundle(
        domain="tetris",
        description=description,
        goal={"lines": 0, "pieces": 0},
        rules={},
        pool=pool,
        source_hash=source_hash(source),
        builder_version="tetris-builder/1",
    )


def test_identical_content_from_different_sources_is_recognised() -> None:
    first, second = _bundle(_pool(3), source="x = 1"), _bundle(_pool(3), source="y = 2")
    assert first.content_hash == second.content_hash
    assert first == second and len({first, second}) == 1
    assert first.source_hash != second.source_hash


@pytest.mark.parametrize(
    "change",
    [
        lambda: _bundle(_pool(4)),
        lambda: _bundle(_pool(3), description="other"),
        lambda: _bundle(_pool(3, k=5)),
    ],
)
def test_any_content_change_changes_the_hash(change) -> None:  # type: ignore[no-untyped-def]
    assert change().content_hash != _bundle(_pool(3)).content_hash


def test_bytes_round_trip_keeps_everything() -> None:
    bundle = _bundle(_pool(2))
    restored = LevelBundle.from_bytes(bundle.to_bytes())
    assert restored == bundle
    assert restored.provenance() == bundle.provenance()
    assert restored.description == bundle.description and restored.goal == bundle.goal
    for key, value in bundle.pool.items():
        np.testing.assert_array_equal(restored.pool[key], value)
        assert restored.pool[key].dtype == value.dtype


def test_damaged_bytes_are_refused() -> None:
    with pytest.raises(ValueError, match="not a level bundle"):
        LevelBundle.from_bytes(b"garbage")


def test_a_stored_hash_that_does_not_match_is_refused() -> None:
    with pytest.raises(ValueError, match="content hash does not match"):
        LevelBundle(
            domain="tetris",
            description="d",
            goal={},
            rules={},
            pool=_pool(1),
            source_hash="s",
            builder_version="v",
            content_hash="0" * 64,
        )


def test_instance_and_pool_size() -> None:
    bundle = _bundle(_pool(1, k=3))
    assert bundle.pool_size == 3
    assert bundle.instance(2)["board"].shape == (20, 10)
