"""The completion bonus in each world's units: never above the running target return, positive
on a completed goal, the paper's rule as an option, the running mean and the wrapper (any
environment; each world's own test pays it in that world's units)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.domains.craftax.student.slot_world import CRAFTAX_BONUS
from dicode.domains.maze.student.slot_world import MAZE_BONUS
from dicode.domains.tetris.student.config import PPOConfig
from dicode.domains.tetris.student.slot_world import bonus_config
from dicode.student.bonus import (
    BonusConfig,
    BonusParams,
    CompletionBonus,
    completion_bonus,
    running_return,
)

WORLDS = {"tetris": bonus_config(PPOConfig()), "craftax": CRAFTAX_BONUS, "maze": MAZE_BONUS}


def paid(config: BonusConfig, running: float) -> float:
    return float(completion_bonus(jnp.asarray([True]), jnp.float32(running), config)[0])


@pytest.mark.parametrize("world", sorted(WORLDS))
@settings(max_examples=40, deadline=None)
@given(running=st.floats(-10.0, 1e4, width=32))
def test_a_goal_never_pays_more_than_a_target_game_and_always_pays(
    world: str, running: float
) -> None:
    config = WORLDS[world]
    bonus = paid(config, running)
    assert bonus > 0.0
    assert bonus <= np.float32(max(running, config.least))  # ε only while R̄ is below it
    assert float(completion_bonus(jnp.asarray([False]), jnp.float32(running), config)[0]) == 0.0


def test_the_numbers_of_each_world() -> None:
    tetris, craftax, maze = WORLDS["tetris"], WORLDS["craftax"], WORLDS["maze"]
    # Tetris: d = 20 alone (k = 0) once a target game returns 20 points; here that is ~20 pieces.
    assert [paid(tetris, r) for r in (0.0, 12.0, 3_000.0)] == [1.0, 12.0, 20.0]
    # Craftax: the paper paid max(20, 2·R) = 20 against a 4.5-point game; now the game's worth.
    assert paid(craftax, 4.5) == pytest.approx(4.5)
    assert paid(craftax, 60.0) == pytest.approx(60.0)  # min(max(20, 120), 60)
    assert paid(craftax, -0.5) == pytest.approx(0.1)
    # The maze: the paper's max(1, 2·R) paid ≈ 1.7 at R = 0.85; now at most the solve's worth.
    assert paid(maze, 0.85) == pytest.approx(0.85)
    assert paid(maze, 0.0) == pytest.approx(0.1)


def test_the_papers_rule_is_an_option() -> None:
    paper = BonusConfig(floor=20.0, scale=2.0, paper=True)
    assert [paid(paper, r) for r in (0.0, 4.5, 30.0)] == [20.0, 20.0, 60.0]


def test_the_running_return_follows_the_latest_target_episodes() -> None:
    mean, seen = running_return(0.0, 0, 4.0, 3)
    assert (mean, seen) == (4.0, 3)  # the first batch sets it
    mean, seen = running_return(mean, seen, 8.0, 0)
    assert (mean, seen) == (4.0, 3)  # no episode: kept
    mean, seen = running_return(mean, seen, 8.0, 1, window=4)
    assert (mean, seen) == (5.0, 4)  # one episode moves it a quarter of the way
    for _ in range(200):
        mean, seen = running_return(mean, seen, 8.0, 2, window=4)
    assert mean == pytest.approx(8.0)


class _Counter:
    """A toy environment: the state counts steps; step 1 completes the goal."""

    def reset(self, key: object, params: float) -> tuple[str, int]:
        return "start", 0

    def step(self, key: object, state: int, action: object, params: float) -> tuple:
        info = {"completed": jnp.asarray(state == 0), "success": jnp.asarray(state == 0)}
        return "obs", state + 1, jnp.float32(params), jnp.asarray(state > 0), info


def test_the_wrapper_adds_the_bonus_where_a_paying_level_is_completed() -> None:
    env = CompletionBonus(_Counter(), BonusConfig(floor=5.0, scale=0.0, least=0.5))
    params = BonusParams(2.0, jnp.float32(3.0), jnp.asarray(True))
    assert env.reset(None, params) == ("start", 0)
    obs, state, reward, done, info = env.step(None, 0, None, params)
    assert (obs, state, bool(done)) == ("obs", 1, False)
    assert float(reward) == 5.0  # 2 + min(5, R̄ = 3)
    assert (float(info["bonus"]), float(info["engine_reward"])) == (3.0, 2.0)
    _, _, reward, _, info = env.step(None, 1, None, params)  # nothing completed: nothing paid
    assert (float(reward), float(info["bonus"])) == (2.0, 0.0)
    unpaid = BonusParams(2.0, jnp.float32(3.0), jnp.asarray(False))  # a level that pays nothing
    _, _, reward, _, info = env.step(None, 0, None, unpaid)
    assert (float(reward), float(info["bonus"])) == (2.0, 0.0)
