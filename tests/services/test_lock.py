"""The lock file pins every dependency pyproject.toml declares, at a version it allows, so
`make install` and the compose image train with the stack the figures were measured on."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"not an exact pin: {line!r}"
            pins[canonicalize_name(name)] = version
    return pins


def test_every_declared_dependency_is_pinned_at_an_allowed_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    pins = _pins()
    for text in declared:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue  # for another Python
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in requirements.lock"
        assert requirement.specifier.contains(pins[name], prereleases=True), (text, pins[name])
