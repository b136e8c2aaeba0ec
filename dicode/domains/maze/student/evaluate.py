"""The maze target protocol: zero-shot solve rate on the fixed held-out mazes.

Protocol (``dicode.domains.maze.heldout``; the set ``heldout`` of ``HELD_OUT_SETS``, our 12
mazes by default): every held-out maze is played ``episodes`` times
and each of ``dr_mazes`` fixed domain-randomised mazes (the target game's distribution, stream
``EVAL_SEED``, never trained on) once; all episodes run side by side in the real engine from
the fixed key ``seed``. The policy samples its actions (as in training) from its GRU, which
starts each episode at zero. An episode ends at the goal or after ``min(max_steps, T)`` steps.

Figures, headline first: ``solve_rate`` (the mean over held-out mazes of each maze's share of
solved episodes), ``mean_return`` (mean held-out episode return ``1 − 0.9·t/T`` or 0),
``mean_length``, ``solve_<name>`` per held-out maze, then ``dr_solve_rate`` and
``dr_mean_return`` on the DR set, the held-out solve rates by property (``heldout_path_short``
/ ``_long``, ``heldout_no_dead_ends`` / ``heldout_dead_ends``; for people only), and last, under
``"skills"``, the skill profile the teachers read: the DR mazes' solve rates by shortest path
and by few / many dead ends (``dicode.domains.maze.skills``; no skill choice reads the test
set). The jitted function takes the parameters as an argument, so periodic evaluation compiles
once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.maze import engine
from dicode.domains.maze.generate import dr_pool
from dicode.domains.maze.grid import MAX_STEPS, dead_ends
from dicode.domains.maze.heldout import held_out_names, held_out_pool
from dicode.domains.maze.level_checks import MazePool, shortest_paths
from dicode.domains.maze.skills import FEW_DEAD_ENDS, HELD_OUT_BANDS, PATH_BANDS
from dicode.domains.maze.student.config import EVAL_DR_MAZES, EVAL_EPISODES, EVAL_SEED
from dicode.domains.maze.student.networks import MazeActorCritic, apply_policy

# The DR evaluation stream is apart from the training streams (seeded by small run seeds).
_DR_EVAL_STREAM = 7_770_001


@dataclass(frozen=True)
class EvalResult:
    """One episode per row: which maze, solved or not, return and length."""

    names: tuple[str, ...]  # held-out maze names, in order
    maze: np.ndarray  # (E,) index into names, or -1 for a DR maze
    solved: np.ndarray  # (E,) bool
    returns: np.ndarray  # (E,)
    lengths: np.ndarray  # (E,)
    paths: np.ndarray  # (E,) the maze's shortest path in moves
    dead_ends: np.ndarray  # (E,) the maze's dead ends

    def figures(self) -> dict[str, Any]:
        """The protocol's figures, solve rate first, the skill profile last (``"skills"``)."""
        held = self.maze >= 0
        per_maze = [float(self.solved[self.maze == i].mean()) for i in range(len(self.names))]
        figures: dict[str, Any] = {
            "solve_rate": float(np.mean(per_maze)),
            "mean_return": float(self.returns[held].mean()),
            "mean_length": float(self.lengths[held].mean()),
        }
        figures |= {f"solve_{name}": rate for name, rate in zip(self.names, per_maze, strict=True)}
        dr = ~held
        if dr.any():
            figures["dr_solve_rate"] = float(self.solved[dr].mean())
            figures["dr_mean_return"] = float(self.returns[dr].mean())
        groups = {name: held & self._in_band(band) for name, band in HELD_OUT_BANDS.items()}
        groups["heldout_no_dead_ends"] = held & (self.dead_ends == 0)
        groups["heldout_dead_ends"] = held & (self.dead_ends > 0)
        figures |= self._solve_rates(groups)
        return figures | {"skills": self.skill_profile()}

    def skill_profile(self) -> dict[str, float]:
        """Solve rates of the DR mazes (the target game's distribution) by shortest path
        (``PATH_BANDS``) and by few / many dead ends: what a teacher can act on."""
        dr = self.maze < 0
        groups = {name: dr & self._in_band(band) for name, band in PATH_BANDS.items()}
        groups["few_dead_ends"] = dr & (self.dead_ends <= FEW_DEAD_ENDS)
        groups["many_dead_ends"] = dr & (self.dead_ends > FEW_DEAD_ENDS)
        return self._solve_rates(groups)

    def _solve_rates(self, groups: dict[str, np.ndarray]) -> dict[str, float]:
        """Each group's solve rate; empty groups are left out."""
        return {name: float(self.solved[g].mean()) for name, g in groups.items() if g.any()}

    def _in_band(self, band: tuple[int, int | None]) -> np.ndarray:
        low, high = band
        inside = self.paths >= low
        return inside if high is None else inside & (self.paths <= high)


def _concat(pools: list[MazePool]) -> MazePool:
    return MazePool(
        walls=np.concatenate([p.walls for p in pools]),
        start_pos=np.concatenate([p.start_pos for p in pools]),
        start_dir=np.concatenate([p.start_dir for p in pools]),
        goal_pos=np.concatenate([p.goal_pos for p in pools]),
    )


class MazeEvaluator:
    """``evaluator(params) -> EvalResult``; the episodes' mazes are laid out once, here."""

    def __init__(
        self,
        network: MazeActorCritic,
        episodes: int = EVAL_EPISODES,
        max_steps: int = MAX_STEPS,
        dr_mazes: int = EVAL_DR_MAZES,
        seed: int = EVAL_SEED,
        heldout: str = "ours",
    ) -> None:
        if episodes < 1 or max_steps < 1 or dr_mazes < 0:
            raise ValueError("episodes and max_steps must be >= 1, dr_mazes >= 0")
        self.names = held_out_names(heldout)
        self.episodes, self.max_steps = episodes, min(max_steps, MAX_STEPS)
        held = held_out_pool(heldout)
        order = np.repeat(np.arange(held.size), episodes)
        pools = [MazePool(held.walls[order], held.start_pos[order], held.start_dir[order],
                          held.goal_pos[order])]  # fmt: skip
        maze_index = [order]
        if dr_mazes:
            pools.append(dr_pool(_DR_EVAL_STREAM + seed, range(dr_mazes)))
            maze_index.append(np.full(dr_mazes, -1))
        everything = _concat(pools)
        self._levels = engine.pool_params(everything, max_steps=self.max_steps)
        self._maze = np.concatenate(maze_index)
        self._paths = shortest_paths(everything.as_dict())
        self._dead_ends = np.asarray([dead_ends(w) for w in everything.walls])
        self._key = jax.random.PRNGKey(seed)
        n = len(self._maze)
        limit = self.max_steps

        def run(params: Any, levels: engine.MazeParams, key: jax.Array) -> tuple[jax.Array, ...]:
            no_reset = jnp.zeros((1, n), bool)
            no_bonus = jnp.zeros((1, n), bool)
            # The maze's reset and step draw nothing: the key goes to the policy alone.
            _, start = jax.vmap(engine.reset, in_axes=(None, 0))(key, levels)
            step = jax.vmap(engine.step, in_axes=(None, 0, 0, 0))

            def playing(carry: tuple) -> jax.Array:
                t, live = carry[0], carry[2]
                return (t < limit) & live.any()

            def advance(carry: tuple) -> tuple:
                t, state, live, hidden, won, ret, length = carry
                obs = jax.vmap(engine.observe)(state)[None]
                hidden, logits, _ = apply_policy(network, params, hidden, obs, no_reset, no_bonus)
                action = jax.random.categorical(jax.random.fold_in(key, t), logits[0])
                _, state, reward, done, info = step(key, state, action, levels)
                won = won | (live & info["success"])
                ret = ret + jnp.where(live, reward, 0.0)
                length = length + live
                return t + 1, state, live & ~done, hidden, won, ret, length

            live, won = jnp.ones((n,), bool), jnp.zeros((n,), bool)
            hidden = network.initial_hidden(n)
            ret, length = jnp.zeros((n,)), jnp.zeros((n,), jnp.int32)
            carry = (jnp.int32(0), start, live, hidden, won, ret, length)
            _, _, _, _, won, ret, length = jax.lax.while_loop(playing, advance, carry)
            return won, ret, length

        self._run = jax.jit(run)
        # Several seeds' parameters (a leading seed axis) in one program, the same episodes.
        self._run_batch = jax.jit(jax.vmap(run, in_axes=(0, None, None)))

    def __call__(self, params: Any) -> EvalResult:
        won, ret, length = jax.device_get(self._run(params, self._levels, self._key))
        return self._result(won, ret, length)

    def batch(self, params: Any) -> list[EvalResult]:
        """The protocol for stacked parameters (leading axis: seeds), one result per seed."""
        won, ret, length = jax.device_get(self._run_batch(params, self._levels, self._key))
        return [self._result(*row) for row in zip(won, ret, length, strict=True)]

    def _result(self, won: np.ndarray, ret: np.ndarray, length: np.ndarray) -> EvalResult:
        return EvalResult(
            names=self.names,
            maze=self._maze,
            solved=np.asarray(won, bool),
            returns=np.asarray(ret),
            lengths=np.asarray(length),
            paths=self._paths,
            dead_ends=self._dead_ends,
        )
