"""Run settings: every profile of every world round-trips through the stored config, typos are
refused, and an unknown (world, profile) pair names the known ones — in the library and in
`dicode run`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from dicode import domains
from dicode.settings import RunSettings, profile
from services.cli import app

PAIRS = [(world, name) for world in domains.names() for name in domains.get(world).profiles()]


@pytest.mark.parametrize("domain,name", PAIRS)
def test_every_profile_round_trips(domain: str, name: str) -> None:
    settings = profile(name, domain=domain, seed=3)
    assert settings.domain == domain and settings.profile == name
    assert settings.seed == settings.student.ppo.seed == 3
    assert RunSettings.from_dict(settings.to_dict()) == settings


def test_craftax_smoke_fits_two_cores() -> None:
    smoke = profile("smoke", domain="craftax")
    assert smoke.student.ppo.num_envs <= 16 and smoke.student.ppo.layer_size <= 64
    assert smoke.evaluator.games <= 8 and smoke.evaluator.max_steps <= 500
    assert smoke.generator.in_flight == 1


def test_a_run_stored_without_newer_keys_reads_with_their_defaults() -> None:
    stored = profile("quick", domain="tetris").to_dict()
    del stored["student"]["ppo"]["level_context"]
    del stored["generator"]["skill_share"]
    assert RunSettings.from_dict(stored) == profile("quick", domain="tetris")


@pytest.mark.parametrize(
    "path",
    [
        ("typo",),
        ("student", "typo"),
        ("student", "ppo", "typo"),
        ("student", "curriculum", "typo"),
        ("evaluator", "typo"),
    ],
)
def test_unknown_keys_are_refused(path: tuple[str, ...]) -> None:
    data = profile("smoke", domain="craftax").to_dict()
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = 1
    with pytest.raises(ValueError, match=r"unknown .*typo"):
        RunSettings.from_dict(data)


def test_an_unknown_domain_profile_pair_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"'quick' for domain 'craftax'.*craftax/smoke"):
        profile("quick", domain="craftax")
    with pytest.raises(ValueError, match=r"unknown world 'chess'; known worlds: craftax"):
        profile("quick", domain="chess")


def test_dicode_run_refuses_a_profile_of_another_domain(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["run", "--domain", "craftax", "--profile", "quick", "--runs-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "unknown profile 'quick' for domain 'craftax'" in result.output
    assert "craftax/smoke" in result.output
    assert not any(tmp_path.iterdir()), "nothing may be created for a refused run"
