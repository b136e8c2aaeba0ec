"""Which Ray node each actor of a run goes to: Ray resources per role.

A node advertises custom resources when it starts (``ray start --resources='{"student": 1}'``,
KubeRay's ``rayStartParams.resources``); an actor that asks for one is scheduled only on a node
that has it, and waits (pending) until such a node joins. The roles are the student, the target
evaluator and the generator(s). ``{"student": {"student": 1, "GPU": 1}}`` puts the student on a
GPU node that carries ``student``; ``GPU`` and ``CPU`` become Ray's ``num_gpus``/``num_cpus``,
any other key is a custom resource. The default asks for nothing, so every actor fits anywhere,
as on one machine.

The placement belongs to the cluster, not to the run: it is read from ``--placement`` or
``DICODE_PLACEMENT`` (JSON) and never stored with the run's settings, so a run resumed on a
laptop does not wait forever for the GPU node it had on the cluster.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields
from typing import Any

import ray

ENV = "DICODE_PLACEMENT"
ROLES = ("student", "evaluator", "generator")


@dataclass(frozen=True)
class Placement:
    """Ray resources each role's actor asks for (empty: anywhere)."""

    student: dict[str, float] = field(default_factory=dict)
    evaluator: dict[str, float] = field(default_factory=dict)
    generator: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for role in ROLES:
            for name, amount in getattr(self, role).items():
                if not isinstance(amount, int | float) or isinstance(amount, bool) or amount < 0:
                    raise ValueError(f"placement {role}.{name}: {amount!r} is not a number >= 0")

    @classmethod
    def parse(cls, text: str | None) -> Placement:
        """From JSON such as ``{"student": {"student": 1, "GPU": 1}}``; empty text: no placement.
        An unknown role is an error naming it (a typo must not silently place nothing)."""
        if not text or not text.strip():
            return cls()
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"placement is not JSON ({exc.msg}): {text!r}") from None
        if not isinstance(data, dict):
            raise ValueError(f"placement must be a JSON object of roles, got {text!r}")
        unknown = set(data) - set(ROLES)
        if unknown:
            raise ValueError(f"unknown placement roles {sorted(unknown)}; known: {list(ROLES)}")
        for role, wanted in data.items():
            if not isinstance(wanted, dict):
                raise ValueError(f"placement {role}: expected an object of resources")
        return cls(**{role: {str(k): v for k, v in want.items()} for role, want in data.items()})

    @classmethod
    def from_env(cls) -> Placement:
        return cls.parse(os.environ.get(ENV))

    def to_json(self) -> str:
        chosen = {f.name: getattr(self, f.name) for f in fields(self)}
        return json.dumps({role: wanted for role, wanted in chosen.items() if wanted})

    def options(self, role: str) -> dict[str, Any]:
        """Keyword arguments for ``ActorClass.options(...)`` placing ``role``'s actor."""
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}; known: {list(ROLES)}")
        wanted = dict(getattr(self, role))
        options: dict[str, Any] = {}
        # Ray refuses CPU and GPU inside ``resources``: they have their own arguments.
        if "GPU" in wanted:
            options["num_gpus"] = wanted.pop("GPU")
        if "CPU" in wanted:
            options["num_cpus"] = wanted.pop("CPU")
        if wanted:
            options["resources"] = wanted
        return options

    def custom_resources(self) -> dict[str, float]:
        """Every custom resource the roles ask for, summed: what a single node must carry to host
        one actor of each role (``dicode run`` gives its one local node these)."""
        merged: dict[str, float] = {}
        for role in ROLES:
            for name, amount in getattr(self, role).items():
                if name not in ("CPU", "GPU"):
                    merged[name] = merged.get(name, 0) + amount
        return merged


def place(actor_class: Any, role: str, placement: Placement) -> Any:
    """``actor_class`` with ``role``'s placement applied (call ``.remote(...)`` on it)."""
    options = placement.options(role)
    return actor_class.options(**options) if options else actor_class


def current_node() -> str | None:
    """The Ray node id this code runs on (None outside Ray): actors report it in ``status()``."""
    if not ray.is_initialized():
        return None
    return str(ray.get_runtime_context().get_node_id())
