"""Run settings: every profile of every world round-trips through the stored config, typos are
refused, and an unknown (world, profile) pair names the known ones — in the library and in
`dicode run`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from dicode import domains
from dicode.settings import RunSettings
from services.cli import app

PAIRS = [(world, name) for world in domains.names() for name in domains.get(world).profiles()]
TETRIS, CRAFTAX = domains.get("tetris"), domains.get("craftax")


@pytest.mark.parametrize("domain,name", PAIRS)
def test_every_profile_round_trips(domain: str, name: str) -> None:
    world = domains.get(domain)
    settings = domains.profile(world, name, seed=3)
    assert settings.domain == domain and settings.profile == name
    assert settings.seed == settings.student.ppo.seed == 3
    assert RunSettings.from_dict(settings.to_dict(), world) == settings


def test_craftax_smoke_fits_two_cores() -> None:
    smoke = domains.profile(CRAFTAX, "smoke")
    assert smoke.student.ppo.num_envs <= 16 and smoke.student.ppo.layer_size <= 64
    assert smoke.evaluator.games <= 8 and smoke.evaluator.max_steps <= 500
    assert smoke.generator.in_flight == 1


def test_a_run_stored_without_newer_keys_reads_with_their_defaults() -> None:
    stored = domains.profile(TETRIS, "quick").to_dict()
    del stored["student"]["ppo"]["level_context"]
    del stored["generator"]["skill_share"]
    assert RunSettings.from_dict(stored, TETRIS) == domains.profile(TETRIS, "quick")


def test_a_run_is_read_back_by_its_own_world_only() -> None:
    with pytest.raises(ValueError, match="a run of 'craftax' read as one of 'tetris'"):
        RunSettings.from_dict(domains.profile(CRAFTAX, "smoke").to_dict(), TETRIS)


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
    data = domains.profile(CRAFTAX, "smoke").to_dict()
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = 1
    with pytest.raises(ValueError, match=r"unknown .*typo"):
        RunSettings.from_dict(data, CRAFTAX)


def test_an_unknown_domain_profile_pair_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"'quick' for domain 'craftax'.*craftax/smoke"):
        domains.profile(CRAFTAX, "quick")
    with pytest.raises(ValueError, match=r"unknown world 'chess'; known worlds: craftax"):
        domains.get("chess")


def test_dicode_run_refuses_a_profile_of_another_domain(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["run", "--domain", "craftax", "--profile", "quick", "--runs-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "unknown profile 'quick' for domain 'craftax'" in result.output
    assert "craftax/smoke" in result.output
    assert not any(tmp_path.iterdir()), "nothing may be created for a refused run"
