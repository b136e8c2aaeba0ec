"""The worlds, each one folder under ``dicode/domains/`` exposing one ``Domain`` object.

``get(name)`` is the one lookup: every part of the system that needs something of a world asks
its domain object (``dicode.domains.base.Domain``) instead of comparing the world's name. A
world is found by its folder: a package here with a ``domain`` module defining ``DOMAIN``.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from importlib import util

from dicode.domains.base import Domain


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
