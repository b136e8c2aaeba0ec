"""Run settings: every profile round-trips through the stored config, typos are refused, and an
unknown (domain, profile) pair names the known ones — in the library and in `dicode run`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from dicode.cli import app
from services.settings import PROFILES, RunSettings, profile


@pytest.mark.parametrize("domain,name", [(d, n) for d, named in PROFILES.items() for n in named])
def test_every_profile_round_trips(domain: str, name: str) -> None:
    settings = profile(name, domain=domain, seed=3)
    assert settings.domain == domain and settings.profile == name
    assert settings.student.ppo.seed == settings.craftax.ppo.seed == 3
    assert RunSettings.from_dict(settings.to_dict()) == settings


def test_craftax_smoke_fits_two_cores() -> None:
    smoke = profile("smoke", domain="craftax")
    assert smoke.craftax.ppo.num_envs <= 16 and smoke.craftax.ppo.layer_size <= 64
    assert smoke.evaluator.games <= 8 and smoke.evaluator.max_steps <= 500
    assert smoke.generator.in_flight == 1


def test_a_tetris_run_stored_before_craftax_settings_still_reads() -> None:
    stored = PROFILES["tetris"]["quick"].to_dict()
    del stored["craftax"]
    evaluator = dict(stored["evaluator"])
    del evaluator["max_steps"]
    stored["evaluator"] = evaluator
    assert RunSettings.from_dict(stored) == PROFILES["tetris"]["quick"]


@pytest.mark.parametrize(
    "path",
    [
        ("typo",),
        ("craftax", "typo"),
        ("craftax", "ppo", "typo"),
        ("student", "typo"),
        ("craftax", "curriculum", "typo"),
    ],
)
def test_unknown_keys_are_refused(path: tuple[str, ...]) -> None:
    data = PROFILES["craftax"]["smoke"].to_dict()
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = 1
    with pytest.raises(ValueError, match=r"unknown .*typo"):
        RunSettings.from_dict(data)


def test_an_unknown_domain_profile_pair_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"'quick' for domain 'craftax'.*craftax/smoke"):
        profile("quick", domain="craftax")
    with pytest.raises(ValueError, match=r"domain 'chess'.*tetris/quick"):
        profile("quick", domain="chess")


def test_dicode_run_refuses_a_profile_of_another_domain(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["run", "--domain", "craftax", "--profile", "quick", "--runs-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "unknown profile 'quick' for domain 'craftax'" in result.output
    assert "craftax/smoke" in result.output
    assert not any(tmp_path.iterdir()), "nothing may be created for a refused run"
