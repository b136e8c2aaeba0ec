"""The worlds, each one folder exposing one ``Domain`` object.

``get(name)`` is the one lookup, made at the edge (the CLI, the services, the benchmarks): every
part of the system that needs something of a world is handed its domain object
(``dicode.domains.base.Domain``) instead of the world's name. A world is found by its folder: a
package with a ``domain`` module defining ``DOMAIN``, named by the folder. The library's worlds
are the folders here; more come from the environment variable ``DICODE_WORLDS``, a comma-separated
list of such packages by module path (e.g. ``DICODE_WORLDS=tests.worlds.corridor``, the test
world of ``docs/architecture.md``), importable by every process of a run. Its named run presets
are found through the object too (``profile``).
"""

from __future__ import annotations

import functools
import importlib
import os
import pkgutil
from dataclasses import replace
from importlib import util

from dicode.domains.base import Domain
from dicode.settings import RunSettings

#: Worlds outside the library: module paths of world packages, comma-separated.
WORLDS_VARIABLE = "DICODE_WORLDS"


@functools.cache
def _library_worlds() -> dict[str, str]:
    found = {}
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg and util.find_spec(f"{__name__}.{module.name}.domain") is not None:
            found[module.name] = f"{__name__}.{module.name}"
    return found


def _packages() -> dict[str, str]:
    """Every known world's package by its name: the library's, then those of DICODE_WORLDS
    (read on every call, so a process sees the variable as it is now)."""
    packages = dict(_library_worlds())
    for package in filter(
        None, (p.strip() for p in os.environ.get(WORLDS_VARIABLE, "").split(","))
    ):
        name = package.rsplit(".", 1)[-1]
        if packages.get(name, package) != package:
            raise ValueError(
                f"{WORLDS_VARIABLE}: {package} is named {name!r} like {packages[name]}"
            )
        packages[name] = package
    return packages


def names() -> tuple[str, ...]:
    """The known worlds, sorted."""
    return tuple(sorted(_packages()))


def get(name: str) -> Domain:
    """The world called ``name``; an unknown name is a ``ValueError`` listing the known ones."""
    packages = _packages()
    if name not in packages:
        raise ValueError(f"unknown world {name!r}; known worlds: {', '.join(sorted(packages))}")
    return _load(packages[name], name)


@functools.cache
def _load(package: str, name: str) -> Domain:
    try:
        found = util.find_spec(f"{package}.domain") is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        raise ValueError(
            f"world {name!r}: no module {package}.domain on the import path "
            f"({WORLDS_VARIABLE} names packages importable by every process of a run)"
        )
    domain: Domain = importlib.import_module(f"{package}.domain").DOMAIN
    if domain.name != name:  # stored runs and bundles name the world: one name everywhere
        raise ValueError(f"world {name!r}: {package}.domain.DOMAIN is named {domain.name!r}")
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
