"""The level bundle: what a level *is* once its code has run — data for the fixed engine.

A bundle holds the description, the goal, bounded rule parameters and a pool of K initial
states in the domain's state schema (stacked arrays, leading axis K), plus provenance. Its
content hash covers only what the student sees (domain, description, goal, rules, pool), so two
sources that produce identical levels share a content hash; the source hash tells them apart.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

_META_KEY = "__meta__"


def source_hash(source: str) -> str:
    """SHA-256 of level source text (UTF-8)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def content_hash(
    domain: str,
    description: str,
    goal: dict[str, int],
    rules: dict[str, float],
    pool: dict[str, np.ndarray],
) -> str:
    """SHA-256 over a canonical byte form: sorted JSON header, then each array in key order as
    name, dtype (little-endian), shape and C-ordered bytes."""
    digest = hashlib.sha256()
    header = {"domain": domain, "description": description, "goal": goal, "rules": rules}
    digest.update(json.dumps(header, sort_keys=True, separators=(",", ":")).encode("utf-8"))
    for key in sorted(pool):
        array = np.ascontiguousarray(pool[key])
        array = array.astype(array.dtype.newbyteorder("<"), copy=False)
        digest.update(f"\0{key}\0{array.dtype.str}\0{array.shape}\0".encode())
        digest.update(array.tobytes(order="C"))
    return digest.hexdigest()


@dataclass(frozen=True, eq=False)
class LevelBundle:
    """A validated level: description, goal, rules, pool of initial states and provenance."""

    domain: str
    description: str
    goal: dict[str, int]
    rules: dict[str, float]
    pool: dict[str, np.ndarray]
    source_hash: str
    builder_version: str
    seed: int = 0
    content_hash: str = field(default="")

    def __post_init__(self) -> None:
        sizes = {key: value.shape[0] for key, value in self.pool.items()}
        if not sizes or len(set(sizes.values())) != 1:
            raise ValueError(f"pool arrays must share a leading axis K > 0, got {sizes}")
        computed = content_hash(self.domain, self.description, self.goal, self.rules, self.pool)
        if self.content_hash and self.content_hash != computed:
            raise ValueError("content hash does not match the bundle's contents")
        object.__setattr__(self, "content_hash", computed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LevelBundle) and other.content_hash == self.content_hash

    def __hash__(self) -> int:
        return hash(self.content_hash)

    @property
    def pool_size(self) -> int:
        """Number of initial states K."""
        return next(iter(self.pool.values())).shape[0]

    def instance(self, index: int) -> dict[str, np.ndarray]:
        """Instance ``index`` of the pool as unstacked arrays."""
        return {key: value[index] for key, value in self.pool.items()}

    def identity_line(self) -> str:
        """The bundle's content hash and pool size on one line (for renderers)."""
        return f"content hash {self.content_hash[:16]}  pool {self.pool_size} instances"

    def provenance(self) -> dict[str, Any]:
        """Where the bundle came from."""
        return {
            "domain": self.domain,
            "source_hash": self.source_hash,
            "builder_version": self.builder_version,
            "seed": self.seed,
        }

    def to_bytes(self) -> bytes:
        """Serialise to ``.npz`` bytes (for the archive database); no pickles."""
        meta = {
            "domain": self.domain,
            "description": self.description,
            "goal": self.goal,
            "rules": self.rules,
            "source_hash": self.source_hash,
            "builder_version": self.builder_version,
            "seed": self.seed,
            "content_hash": self.content_hash,
        }
        encoded = np.frombuffer(json.dumps(meta, sort_keys=True).encode("utf-8"), np.uint8)
        buffer = io.BytesIO()
        arrays: dict[str, Any] = {_META_KEY: encoded, **self.pool}
        np.savez_compressed(buffer, **arrays)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> LevelBundle:
        """Inverse of ``to_bytes``; raises ValueError if the bytes are damaged or inconsistent."""
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                arrays = {key: npz[key] for key in npz.files}
        except (OSError, EOFError, ValueError) as exc:
            raise ValueError(f"not a level bundle: {exc}") from exc
        if _META_KEY not in arrays:
            raise ValueError("not a level bundle: metadata missing")
        meta = json.loads(arrays.pop(_META_KEY).tobytes().decode("utf-8"))
        return cls(pool=arrays, **meta)
