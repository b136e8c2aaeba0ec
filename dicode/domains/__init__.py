"""The worlds, each one folder under ``dicode/domains/`` exposing one ``Domain`` object.

``get(name)`` is the one lookup, made at the edge (the CLI, the services, the benchmarks): every
part of the system that needs something of a world is handed its domain object
(``dicode.domains.base.Domain``) instead of the world's name. A world is found by its folder:
a package here with a ``domain`` module defining ``DOMAIN``. Its named run presets are found
through the object too (``profile``).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import replace
from importlib import util

from dicode.domains.base import Domain
from dicode.settings import RunSettings


@functools.cache
def names() -> tuple[str, ...]:
    """The known worlds (folders with a ``domain.py``), sorted."""
    found = []
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg and util.find_spec(f"{__name__}.{module.name}.domain") is not None:
            found.append(module.name)
    return tuple(sorted(found))


@functools.cache
def get(name: str) -> Domain:
    """The world called ``name``; an unknown name is a ``ValueError`` listing the known ones."""
    if name not in names():
        raise ValueError(f"unknown world {name!r}; known worlds: {', '.join(names())}")
    domain: Domain = importlib.import_module(f"{__name__}.{name}.domain").DOMAIN
    return domain


def known_profiles() -> list[str]:
    """Every ``world/profile`` pair, for error messages and help."""
    return [f"{world}/{name}" for world in names() for name in get(world).profiles()]


def profile(world: Domain, name: str, *, seed: int | None = None) -> RunSettings:
    """The preset ``name`` of ``world`` (with another seed if given); an unknown one lists the
    known pairs."""
    settings = world.profiles().get(name)
    if settings is None:
        raise ValueError(
            f"unknown profile {name!r} for domain {world.name!r}; "
            f"known: {', '.join(known_profiles())}"
        )
    if seed is not None:
        ppo = replace(settings.student.ppo, seed=seed)
        settings = replace(settings, seed=seed, student=replace(settings.student, ppo=ppo))
    return settings
