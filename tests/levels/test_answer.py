"""The parent reads a worker's answer as hostile data (``dicode.levels.answer``).

Forged answers are made here the way a level that took over its worker could write them: the
wrong pool size, members compressed a million to one, extra or missing members, another dtype
or byte order, a header that is not what the worker writes. Each is rejected with what was
wrong before anything is unpacked; a bomb costs the reading process neither memory nor time.
"""

from __future__ import annotations

import bz2
import io
import json
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from dicode import domains
from dicode.levels.answer import AnswerRejected, parse_header, read_pool

SCHEMA = domains.get("tetris").pool_schema
POOL = 4


def _pool(count: int = POOL) -> dict[str, np.ndarray]:
    return {name: np.zeros((count, *shape), dtype) for name, (dtype, shape) in SCHEMA.items()}


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


def test_the_workers_own_answer_reads_back_exactly() -> None:
    pool = _pool()
    pool["board"][1, 0, 3] = 1
    arrays = read_pool(_npz(pool), SCHEMA, POOL)
    assert set(arrays) == set(SCHEMA)
    for name, array in pool.items():
        assert arrays[name].dtype == array.dtype and np.array_equal(arrays[name], array)


def test_every_worlds_schema_matches_what_its_builder_makes() -> None:
    """The schema the parent enforces is the one the builders write (Tetris and the maze; the
    Craftax builder needs a generated base world, checked in tests/craftax)."""
    for name in ("tetris", "maze"):
        domain = domains.get(name)
        builder = __import__(domain.builder_module, fromlist=["make_builder"])
        level = builder.make_builder(np.random.default_rng(0))
        made = {key: (value.dtype, value.shape) for key, value in level.to_arrays().items()}
        assert made == dict(domain.pool_schema)


@pytest.mark.parametrize(
    ("forge", "message"),
    [
        (lambda: _npz(_pool(16_384)), r"claims \d+ bytes"),
        (lambda: _npz(_pool(POOL + 1)), r"claims \d+ bytes|the pool size must be the one"),
        (lambda: _npz(_pool(POOL - 1)), r"the pool size must be the one requested"),
        (lambda: _npz({**_pool(), "extra": np.zeros(3)}), r"lists 6 members"),
        (lambda: _npz({k: v for k, v in _pool().items() if k != "board"}), r"lists 4 members"),
        (
            lambda: _npz({**_pool(), "board": np.zeros((POOL, 20, 10), ">i4")}),
            r"expected \|u1 \(4, 20, 10\)",
        ),
        (
            lambda: _npz({**_pool(), "goal_lines": np.zeros(POOL, ">i4")}),
            r"expected <i4 \(4,\)",
        ),
        (
            lambda: _npz({**_pool(), "board": np.asfortranarray(np.zeros((POOL, 20, 10), "u1"))}),
            r"Fortran order",
        ),
        (lambda: b"PK" + b"\0" * 100, r"no end record"),
        (lambda: _npz(_pool())[:-30], r"no end record|not a valid archive"),
        (lambda: b"", r"no end record"),
    ],
)
def test_a_forged_pool_is_rejected_with_the_reason(forge, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AnswerRejected, match=message):
        read_pool(forge(), SCHEMA, POOL)


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_only_stored_members_are_accepted() -> None:
    members = {f"{k}.npy": b"\0" * 64 for k in SCHEMA}
    for method in (zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        with pytest.raises(AnswerRejected, match=rf"compressed \(method {method}\)"):
            read_pool(_zip(members, method), SCHEMA, POOL)


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_duplicate_and_unknown_members_are_rejected() -> None:
    good = _npz(_pool())
    with zipfile.ZipFile(io.BytesIO(good)) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    twice = dict(members)
    twice.pop("goal_pieces.npy")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in twice.items():
            archive.writestr(name, data)
        archive.writestr("board.npy", members["board.npy"])
    with pytest.raises(AnswerRejected, match="twice"):
        read_pool(buffer.getvalue(), SCHEMA, POOL)
    renamed = {("../board.npy" if k == "board.npy" else k): v for k, v in members.items()}
    with pytest.raises(AnswerRejected, match="not in the schema"):
        read_pool(_zip(renamed), SCHEMA, POOL)


def test_a_boolean_array_holds_only_zero_and_one() -> None:
    schema = {"mask": (np.dtype(bool), (3,))}
    raw = np.array([[0, 1, 2]], np.uint8).view(bool)
    with pytest.raises(AnswerRejected, match="bytes other than 0 and 1"):
        read_pool(_npz({"mask": raw}), schema, 1)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"[" * 100_000, "longer than"),
        (b"[" * 60_000, "not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"ok": "yes", "error": null}', "not a boolean"),
        (b'{"ok": true, "error": "but also an error"}', "exactly when"),
        (b'{"ok": false, "error": null}', "exactly when"),
        (b'{"ok": false, "error": "x", "printed": 5}', "'printed' is not text"),
        (b'{"ok": false, "error": "x", "warnings": [1]}', "'warnings' is not a list"),
    ],
)
def test_a_forged_header_is_rejected(line: bytes, message: str) -> None:
    with pytest.raises(AnswerRejected, match=message):
        parse_header(line)


def test_the_workers_header_reads_back() -> None:
    header = parse_header(json.dumps({"ok": False, "error": "boom", "printed": "hi"}).encode())
    assert (header.ok, header.error, header.printed, header.warnings) == (False, "boom", "hi", [])


_READ_SCRIPT = """
import resource, sys, time
from dicode.domains.tetris.level_checks import POOL_SCHEMA as schema
from dicode.levels.answer import AnswerRejected, read_pool
bomb = open(sys.argv[1], "rb").read()
before_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
started = time.perf_counter()
try:
    read_pool(bomb, schema, 32)
except AnswerRejected as exc:
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(time.perf_counter() - started, peak_mb - before_mb, peak_mb, str(exc))
"""


def test_a_decompression_bomb_costs_neither_memory_nor_time(tmp_path: Path) -> None:
    """Five members of 32 MB of zeros each in bzip2 (160 MB unpacked in 0.4 KB; the hostile level
    wall_forged_bomb_answer sends 1 GB through the real pipe): rejected from the archive's
    directory, before any member is unpacked; the reading process does not grow."""
    zeros = b"\0" * (32 * 2**20)
    stream = bz2.compress(zeros, 9)
    members = {f"{name}.npy": stream for name in SCHEMA}
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(_prepacked_bzip2(members, len(zeros), zlib.crc32(zeros)))
    done = subprocess.run(
        [sys.executable, "-c", _READ_SCRIPT, str(bomb)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    seconds, grown_mb, peak_mb, message = done.stdout.split(" ", 3)
    assert bomb.stat().st_size < 10_000 and "compressed (method 12)" in message
    # (the peak itself is no measure: a child's ru_maxrss starts from the parent's at fork)
    assert float(seconds) < 0.5 and float(grown_mb) < 20 and float(peak_mb) > 0


def _prepacked_bzip2(members: dict[str, bytes], size: int, crc: int) -> bytes:
    """A zip archive of already-compressed bzip2 members, written by hand (zipfile would
    compress the gigabyte itself)."""
    local, central = bytearray(), bytearray()
    for name, data in members.items():
        encoded = name.encode()
        offset = len(local)
        fields = (20, 0, zipfile.ZIP_BZIP2, 0, 0, crc, len(data), size, len(encoded), 0)
        local += struct.pack("<4s5H3L2H", b"PK\x03\x04", *fields) + encoded + data
        central += (
            struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, *fields, 0, 0, 0, 0, offset) + encoded
        )
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(local), 0
    )
    return bytes(local + central + end)
