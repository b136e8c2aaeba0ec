"""docker-compose.yml against the Compose specification (no Docker engine needed), plus the
project's own rules: healthchecks, restart policies, ports, readiness-gated dependencies."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from compose_spec import PyCompose

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return data


def _env_values() -> dict[str, str]:
    """The example settings, so required variables (``${X:?…}``) resolve."""
    pairs = {}
    for line in (ROOT / ".env.example").read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            pairs[key] = value
    return pairs


_VARIABLE = re.compile(r"\$\{(\w+)(?::([-?])([^}]*))?\}|\$\$")


def interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's variable substitution: ``${X}``, ``${X:-default}``, ``${X:?error}``, ``$$``."""

    def value(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, kind, arg = match.groups()
        found = env.get(name, "")
        if found:
            return found
        if kind == "?":
            raise KeyError(f"{name} is required: {arg}")
        return arg if kind == "-" else ""

    return _VARIABLE.sub(value, text)


def test_valid_against_the_compose_spec() -> None:
    PyCompose.from_yaml(interpolate(COMPOSE.read_text(), _env_values())).validate()


def test_required_settings_are_enforced() -> None:
    with pytest.raises(KeyError, match="POSTGRES_PASSWORD"):
        interpolate(COMPOSE.read_text(), {})


def test_spec_validation_catches_mistakes() -> None:
    text = interpolate(COMPOSE.read_text(), _env_values())
    broken = text.replace("condition: service_healthy", "condition: whenever", 1)
    with pytest.raises(ValueError):
        PyCompose.from_yaml(broken).validate()


def test_every_service_has_healthcheck_and_restart(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        assert service.get("restart") in ("unless-stopped", "always", "on-failure"), name
        assert service.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"


def test_ports_and_dependencies(compose: dict[str, Any]) -> None:
    services = compose["services"]
    published = {
        name: [str(p).split(":")[-1] for p in s.get("ports", [])] for name, s in services.items()
    }
    assert published["api"] == ["8000"]
    assert published["ray-head"] == ["8265"]
    for name in ("ray-head", "generator", "api", "generator-llm"):
        depends = services[name]["depends_on"]
        assert depends["postgres"]["condition"] == "service_healthy", name
    assert services["generator-llm"]["depends_on"]["vllm"]["condition"] == "service_healthy"
    assert services["vllm"]["profiles"] == ["gpu"]
    assert "generator" not in services or "profiles" not in services["generator"]
    assert "--teacher" in services["generator"]["command"]
    assert services["generator"]["command"][-1] == "mutation"


def test_vllm_is_pinned_and_health_checked(compose: dict[str, Any]) -> None:
    vllm = compose["services"]["vllm"]
    image, _, tag = vllm["image"].partition(":")
    assert image == "vllm/vllm-openai" and tag and tag != "latest"
    assert any("/health" in part for part in vllm["healthcheck"]["test"])
    assert any("Qwen" in part and "Coder" in part for part in vllm["command"])


def test_generators_can_be_scaled(compose: dict[str, Any]) -> None:
    """`docker compose up --scale generator=4`: replicas need no fixed name or host port."""
    for name in ("generator", "generator-llm"):
        service = compose["services"][name]
        assert "container_name" not in service and "ports" not in service, name


def test_postgres_keeps_its_data_in_a_volume(compose: dict[str, Any]) -> None:
    volumes = compose["services"]["postgres"]["volumes"]
    assert any(v.startswith("pgdata:") for v in volumes)
    assert "pgdata" in compose["volumes"]


def test_services_that_validate_levels_can_start_bubblewrap(compose: dict[str, Any]) -> None:
    needed = {"seccomp=unconfined", "apparmor=unconfined", "systempaths=unconfined"}
    for name in ("generator", "generator-llm", "api"):
        assert needed <= set(compose["services"][name]["security_opt"]), name
    assert "security_opt" not in compose["services"]["postgres"]
    dockerfile = (ROOT / "deploy" / "docker" / "Dockerfile").read_text()
    assert re.search(r"apt-get install[^\n]*bubblewrap", dockerfile)
