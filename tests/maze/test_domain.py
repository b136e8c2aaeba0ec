"""The maze world through the seam: found by name, cheap to look up, profiles that round-trip
through the stored run settings, prompts that render, and the held-out set."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from dicode import domains
from dicode.domains.maze.grid import DIRECTIONS, dead_ends
from dicode.domains.maze.heldout import held_out_mazes
from dicode.domains.maze.seed_levels import SEED_LEVEL_NAMES
from dicode.domains.maze.student.config import MazePPOConfig
from dicode.settings import RunSettings
from dicode.teachers.base import MutationInstruction
from dicode.teachers.prompts import load_prompts, render_system_prompt


def test_the_world_is_found_by_its_folder() -> None:
    assert "maze" in domains.names()
    world = domains.get("maze")
    assert world.name == "maze"
    assert world.target_metrics == ("solve_rate", "mean_return")
    assert world.headline_label == "held-out solve rate"
    assert world.builder_module == "dicode.domains.maze.builder"
    assert list(world.seed_sources()) == list(SEED_LEVEL_NAMES)
    assert world.base_worlds(0, 4) is None and world.rules_of({}) == {}


def test_looking_the_world_up_does_not_import_jax() -> None:
    code = (
        "import sys; from dicode import domains; w = domains.get('maze'); "
        "w.builder_api_docs(); w.profiles(); import dicode.domains.maze.builder; "
        "assert 'jax' not in sys.modules, sorted(m for m in sys.modules if 'jax' in m)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_quick_profile_round_trips_through_the_run_settings() -> None:
    settings = domains.profile(domains.get("maze"), "quick", seed=4)
    assert settings.domain == "maze" and settings.generator.teacher == "mutation"
    ppo = settings.student.ppo
    assert isinstance(ppo, MazePPOConfig) and ppo.seed == 4 and ppo.num_slots >= 3
    assert settings.evaluator.games >= 1
    again = RunSettings.from_dict(settings.to_dict(), domains.get("maze"))
    assert again == settings
    with pytest.raises(ValueError, match="unknown MazePPOConfig settings"):
        domains.get("maze").ppo_config({"num_slots": 2, "bogus": 1})


def test_prompts_render_with_the_worlds_facts() -> None:
    prompts = load_prompts(domains.get("maze"))
    system = render_system_prompt(prompts)
    assert "13x13 grid" in system and "5x5 square" in system and "250 steps" in system
    assert "level.random_walls(count: int)" in system and "$" not in system.replace("$$", "")
    description = prompts.description.render(
        parent_description="p", parent_status="B", parent_profile="x", target_profile="y",
        instruction="harder", example_descriptions="-",
        instruction_hint=prompts.instruction_hints[MutationInstruction.HARDER],
    )  # fmt: skip
    assert "held-out mazes" in description
    prompts.code.render(description="d", parent_code="c", example_code="e")
    prompts.repair.render(stage="rollouts", error="impossible goal")


def test_the_held_out_set_is_fixed_named_and_apart_from_training() -> None:
    mazes = held_out_mazes()
    names = [m.name for m in mazes]
    assert len(names) == len(set(names)) >= 10
    for wanted in ("large_room", "long_corridor", "dead_ends", "labyrinth", "perfect_maze_dfs"):
        assert wanted in names
    for maze in mazes:
        assert maze.direction in DIRECTIONS and maze.shortest_path >= 10
        assert not maze.walls[maze.start] and not maze.walls[maze.goal]
    # Perfect mazes: a spanning tree has free cells - 1 edges between free neighbours.
    for maze in mazes:
        if maze.name.startswith("perfect_maze"):
            free = ~maze.walls
            edges = int((free[:, :-1] & free[:, 1:]).sum() + (free[:-1] & free[1:]).sum())
            assert edges == int(free.sum()) - 1
    assert dead_ends(mazes[names.index("dead_ends")].walls) >= 10
    # None of the seed levels' fixed layouts is a held-out maze.
    from dicode.domains.maze.genome import read_genome

    for name, source in domains.get("maze").seed_sources().items():
        walls = read_genome(source).genome.wall_array()
        assert not any(np.array_equal(walls, m.walls) for m in mazes), name


def test_profiles_name_their_world() -> None:
    for name, settings in domains.get("maze").profiles().items():
        assert settings.profile == name and settings.domain == "maze"
        assert replace(settings.student.ppo, seed=1).seed == 1
