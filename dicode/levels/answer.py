"""Reading a sandbox worker's answer as hostile data.

Level code runs in the worker's own process, so it can write whatever it likes to the answer
pipe: a forged header, a pool of any size, members compressed a million to one. Nothing here
trusts the worker. The answer is one JSON header line, then (when the build succeeded) an
uncompressed ``.npz`` archive, exactly as ``numpy.savez`` writes it. Before a byte is unpacked:

- the header line is short, valid JSON with fields of the right types;
- the archive's directory lists exactly the schema's fields, each once, each *stored* (the only
  compression the worker writes), so unpacked size = packed size, already capped by the answer
  cap; the sizes add up to no more than the schema allows for the *requested* pool size;
- each member's ``.npy`` header names exactly the schema's dtype (byte order included), C order
  and the shape ``(pool_size, *instance shape)``.

Then the bytes are read straight into arrays of that shape. Time and memory are linear in the
answer's size, which the sandbox caps while reading the pipe.
"""

from __future__ import annotations

import io
import json
import math
import struct
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.lib import format as npy_format

#: A world's pool schema: field name → (dtype, shape of one instance).
PoolSchema = Mapping[str, tuple[np.dtype, tuple[int, ...]]]

MAX_HEADER_BYTES = 64 * 1024  # the worker's header holds at most ~6 KB of bounded text
_NPY_HEADER_BYTES = 4096  # an .npy preamble numpy writes for these fields is < 256 bytes
_EOCD = struct.Struct("<4s4H2LH")  # end of central directory record, no comment
_EOCD_SIGNATURE = b"PK\x05\x06"


class AnswerRejected(ValueError):
    """The worker's answer breaks the answer contract; the message says how."""


@dataclass(frozen=True)
class WorkerHeader:
    """The header line of a worker's answer, type-checked."""

    ok: bool
    error: str | None
    printed: str = ""
    warnings: list[str] = field(default_factory=list)


def parse_header(line: bytes) -> WorkerHeader:
    """The header line as a ``WorkerHeader``; ``AnswerRejected`` when it is not one."""
    if len(line) > MAX_HEADER_BYTES:
        raise AnswerRejected(f"the header line is longer than {MAX_HEADER_BYTES} bytes")
    try:
        header = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise AnswerRejected(f"the header line is not JSON: {str(exc)[:200]}") from None
    if not isinstance(header, dict):
        raise AnswerRejected("the header line is not a JSON object")
    ok, error = header.get("ok"), header.get("error")
    printed, warnings = header.get("printed", ""), header.get("warnings", [])
    if not isinstance(ok, bool) or not (error is None or isinstance(error, str)):
        raise AnswerRejected("the header's 'ok' is not a boolean or its 'error' not text")
    if ok == (error is not None):
        raise AnswerRejected("the header must carry an error exactly when the build failed")
    if not isinstance(printed, str):
        raise AnswerRejected("the header's 'printed' is not text")
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise AnswerRejected("the header's 'warnings' is not a list of text")
    return WorkerHeader(ok=ok, error=error, printed=printed, warnings=warnings)


def expected_bytes(schema: PoolSchema, pool_size: int) -> dict[str, int]:
    """Bytes of array data each field holds for a pool of ``pool_size`` instances."""
    return {
        name: pool_size * math.prod(shape) * np.dtype(dtype).itemsize
        for name, (dtype, shape) in schema.items()
    }


def read_pool(payload: bytes, schema: PoolSchema, pool_size: int) -> dict[str, np.ndarray]:
    """The pool arrays in ``payload`` (an uncompressed ``.npz``), checked against ``schema``
    and ``pool_size`` before anything is read; ``AnswerRejected`` says what was wrong."""
    data_bytes = expected_bytes(schema, pool_size)
    _check_directory_count(payload, len(schema))
    try:
        archive = zipfile.ZipFile(io.BytesIO(payload))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError) as exc:
        raise AnswerRejected(f"the pool is not a valid archive: {exc}") from None
    with archive:
        members = _check_members(archive.infolist(), data_bytes)
        return {
            name: _read_member(archive, info, schema[name], pool_size)
            for name, info in members.items()
        }


def _check_directory_count(payload: bytes, fields: int) -> None:
    """Read the entry count from the archive's end record before zipfile parses anything."""
    if len(payload) < _EOCD.size or payload[-_EOCD.size : -_EOCD.size + 4] != _EOCD_SIGNATURE:
        raise AnswerRejected("the pool is not an archive as the worker writes it (no end record)")
    _, _, _, _, total, _, _, _ = _EOCD.unpack(payload[-_EOCD.size :])
    if total != fields:
        raise AnswerRejected(f"the pool archive lists {total} members; the schema has {fields}")


def _check_members(
    infos: list[zipfile.ZipInfo], data_bytes: Mapping[str, int]
) -> dict[str, zipfile.ZipInfo]:
    members: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        name = info.filename.removesuffix(".npy")
        if not info.filename.endswith(".npy") or name not in data_bytes:
            raise AnswerRejected(f"the pool has a member {info.filename[:80]!r} not in the schema")
        if name in members:
            raise AnswerRejected(f"the pool lists the member {info.filename!r} twice")
        if info.compress_type != zipfile.ZIP_STORED:
            raise AnswerRejected(
                f"member {info.filename!r} is compressed (method {info.compress_type}); the "
                "worker writes stored members only"
            )
        if info.flag_bits & 0x1:
            raise AnswerRejected(f"member {info.filename!r} is encrypted")
        limit = data_bytes[name] + _NPY_HEADER_BYTES
        if info.file_size != info.compress_size or info.file_size > limit:
            raise AnswerRejected(
                f"member {info.filename!r} claims {info.file_size} bytes; a pool of this size "
                f"holds at most {limit}"
            )
        members[name] = info
    missing = sorted(set(data_bytes) - set(members))
    if missing:
        raise AnswerRejected(f"the pool lacks the fields {missing[:10]}")
    return members


def _read_member(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    spec: tuple[np.dtype, tuple[int, ...]],
    pool_size: int,
) -> np.ndarray:
    dtype, shape = np.dtype(spec[0]), (pool_size, *spec[1])
    try:
        with archive.open(info) as member:
            dtype_read, shape_read, fortran = _npy_header(member)
            if dtype_read != dtype or tuple(shape_read) != shape or fortran:
                raise AnswerRejected(
                    f"{info.filename}: expected {dtype.str} {shape} in C order, got "
                    f"{dtype_read.str} {tuple(shape_read)}{' in Fortran order' if fortran else ''}"
                    " (the pool size must be the one requested)"
                )
            size = math.prod(shape) * dtype.itemsize
            data = member.read(size)
            if len(data) != size or member.read(1):
                raise AnswerRejected(f"{info.filename}: the data does not match its header")
    except (zipfile.BadZipFile, ValueError, EOFError, OSError, struct.error) as exc:
        if isinstance(exc, AnswerRejected):
            raise
        raise AnswerRejected(f"{info.filename}: unreadable: {str(exc)[:200]}") from None
    if dtype == np.bool_ and np.frombuffer(data, np.uint8).max(initial=0) > 1:
        raise AnswerRejected(f"{info.filename}: a boolean array holds bytes other than 0 and 1")
    return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def _npy_header(member: Any) -> tuple[np.dtype, tuple[int, ...], bool]:
    version = npy_format.read_magic(member)
    if version == (1, 0):
        shape, fortran, dtype = npy_format.read_array_header_1_0(member, max_header_size=4096)
    elif version == (2, 0):
        shape, fortran, dtype = npy_format.read_array_header_2_0(member, max_header_size=4096)
    else:
        raise AnswerRejected(f"unsupported .npy version {version}")
    return np.dtype(dtype), tuple(shape), bool(fortran)
