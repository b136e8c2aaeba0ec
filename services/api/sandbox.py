"""The API's own sandbox pools for submitted levels: one per domain, started on the first
submission to a run of that domain, one validation at a time."""

from __future__ import annotations

import threading
from typing import Annotated

from fastapi import Depends, Request

from dicode import domains
from dicode.levels.pipeline import Validator
from dicode.levels.verdict import Verdict


class Sandboxes:
    def __init__(self, given: Validator | None = None) -> None:
        # A validator handed in (tests share one warm pool) is the caller's to close.
        self._given = given
        self._pools: dict[str, Validator] = {} if given is None else {given.world.name: given}
        self._lock = threading.Lock()

    def validate(self, domain: str, code: str) -> Verdict:
        with self._lock:
            if domain not in self._pools:
                world = domains.get(domain)
                self._pools[domain] = Validator(world, pool_size=8, warm=1, rollout_steps=150)
            return self._pools[domain].validate(code)

    def close(self) -> None:
        for pool in self._pools.values():
            if pool is not self._given:
                pool.close()


async def get_sandboxes(request: Request) -> Sandboxes:
    # async: only reads app state, so FastAPI need not hand it to the thread pool.
    sandboxes: Sandboxes = request.app.state.sandboxes
    return sandboxes


SandboxPools = Annotated[Sandboxes, Depends(get_sandboxes)]
