"""Count XLA compilations, to show that level swaps never recompile the engine."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import jax.monitoring

# JAX records one duration event with this name per backend (XLA) compilation.
_BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


@dataclass
class CompileCount:
    """Compilations seen so far inside a ``count_compilations`` block."""

    count: int = 0


@contextmanager
def count_compilations() -> Iterator[CompileCount]:
    """Count backend compilations that happen inside the ``with`` block."""
    counter = CompileCount()

    def listener(event: str, duration_secs: float, **kwargs: str | int) -> None:
        if event == _BACKEND_COMPILE_EVENT:
            counter.count += 1

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield counter
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
