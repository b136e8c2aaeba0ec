"""What a student measures per level: finished episodes, successes, return and the world's sums.

Every world's compiled iteration returns one :class:`SlotStats` (per-slot sums over the episodes
that finished); :func:`slot_tallies` turns it into one :class:`EpisodeTally` per slot, and
:func:`sum_by_level` adds up the slots that played the same level. The world's own figures
(Tetris lines, Craftax episode lengths, …) travel in ``sums`` under their names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np


@flax.struct.dataclass
class SlotStats:
    """Per-slot sums over the episodes that finished during one iteration."""

    episodes: jnp.ndarray  # (S,) finished episodes
    successes: jnp.ndarray  # (S,) finished with the level's goal met
    return_sum: jnp.ndarray  # (S,) summed engine return (completion bonus excluded)
    sums: dict[str, jnp.ndarray]  # (S,) each: the world's own per-episode sums


@dataclass(frozen=True)
class EpisodeTally:
    """Finished episodes of one level (or of the target game) over some iterations."""

    episodes: int = 0
    successes: int = 0
    return_sum: float = 0.0  # engine return, the completion bonus excluded
    sums: Mapping[str, float] = field(default_factory=dict)  # the world's own sums

    @property
    def success_rate(self) -> float | None:
        return self.successes / self.episodes if self.episodes else None

    @property
    def mean_return(self) -> float | None:
        return self.return_sum / self.episodes if self.episodes else None

    def means(self) -> dict[str, float]:
        """``mean_<name>`` per episode of every world sum (empty without a finished episode)."""
        if not self.episodes:
            return {}
        return {f"mean_{name}": value / self.episodes for name, value in self.sums.items()}

    def __add__(self, other: EpisodeTally) -> EpisodeTally:
        names = dict.fromkeys([*self.sums, *other.sums])
        return EpisodeTally(
            self.episodes + other.episodes,
            self.successes + other.successes,
            self.return_sum + other.return_sum,
            {k: self.sums.get(k, 0.0) + other.sums.get(k, 0.0) for k in names},
        )


def env_slots(num_slots: int, envs_per_slot: int) -> jnp.ndarray:
    """The slot of every environment: ``envs_per_slot`` consecutive environments per slot."""
    return jnp.repeat(jnp.arange(num_slots, dtype=jnp.int32), envs_per_slot)


def slot_stats(
    slot_of_env: jnp.ndarray,
    num_slots: int,
    done: jnp.ndarray,
    success: jnp.ndarray,
    returns: jnp.ndarray,
    sums: dict[str, jnp.ndarray],
) -> SlotStats:
    """Per-slot sums of what a rollout collected, ``(T, N)`` arrays that are zero except where
    an episode finished (traceable: called inside a world's compiled iteration)."""

    def per_slot(x: jnp.ndarray) -> jnp.ndarray:
        return jax.ops.segment_sum(x.sum(0), slot_of_env, num_segments=num_slots)

    return SlotStats(
        episodes=per_slot(done.astype(jnp.int32)),
        successes=per_slot(success.astype(jnp.int32)),
        return_sum=per_slot(returns),
        sums={name: per_slot(values) for name, values in sums.items()},
    )


def slot_tallies(stats: SlotStats) -> list[EpisodeTally]:
    """One tally per slot, on the host."""
    host: Any = jax.device_get(stats)
    count = int(np.asarray(host.episodes).shape[0])
    return [
        EpisodeTally(
            int(host.episodes[s]),
            int(host.successes[s]),
            float(host.return_sum[s]),
            {name: float(values[s]) for name, values in host.sums.items()},
        )
        for s in range(count)
    ]


def sum_by_level(
    slot_levels: Sequence[int], per_slot: Sequence[EpisodeTally]
) -> dict[int, EpisodeTally]:
    """Per level id (the target game included), the tallies of the slots that played it."""
    out: dict[int, EpisodeTally] = {}
    for level, tally in zip((int(x) for x in slot_levels), per_slot, strict=True):
        out[level] = out[level] + tally if level in out else tally
    return out


def merge_outcomes(
    a: Mapping[int, EpisodeTally], b: Mapping[int, EpisodeTally]
) -> dict[int, EpisodeTally]:
    """Sum two per-level outcome maps (e.g. the iterations of one session)."""
    out = dict(a)
    for level, tally in b.items():
        out[level] = out[level] + tally if level in out else tally
    return out
