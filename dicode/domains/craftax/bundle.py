"""Craftax level bundles as data: a pool of K initial worlds + a rule vector + a goal.

A bundle is what the sandbox hands back for one level (built K times with different seeds)
and what the engine writes into a level slot. NumPy only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dicode.domains.craftax.builder import BuiltLevel
from dicode.domains.craftax.catalog import ACHIEVEMENT_NAMES, NUM_ACHIEVEMENTS
from dicode.domains.craftax.rules import check_rules, default_rules
from dicode.domains.craftax.schema import FIELD_NAMES, StateArrays, check_state_arrays


class BundleError(ValueError):
    """The pieces of a bundle disagree (shapes, rules or goal across the pool)."""


@dataclass(frozen=True)
class CraftaxBundle:
    """``pool``: schema arrays with a leading axis K; ``rules``: (NUM_RULES,) float32;
    ``goal``: (67,) bool multi-hot (all False for the target game, which has no goal)."""

    pool: StateArrays
    rules: np.ndarray
    goal: np.ndarray

    @property
    def pool_size(self) -> int:
        return int(self.pool["map"].shape[0])

    @property
    def goal_names(self) -> list[str]:
        return [ACHIEVEMENT_NAMES[i] for i in np.flatnonzero(self.goal)]

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Flatten to one dict of arrays (pool fields prefixed ``pool/``) for storage or IPC."""
        out = {f"pool/{name}": value for name, value in self.pool.items()}
        out["rules"], out["goal"] = self.rules, self.goal
        return out

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> CraftaxBundle:
        """Inverse of ``to_arrays``, validating every part."""
        try:
            pool = {name: np.asarray(arrays[f"pool/{name}"]) for name in FIELD_NAMES}
            rules, goal = arrays["rules"], arrays["goal"]
        except KeyError as missing:
            raise BundleError(f"bundle arrays lack {missing}") from None
        return make_bundle(pool, rules, goal)


def make_bundle(
    pool: Mapping[str, np.ndarray], rules: np.ndarray, goal: np.ndarray
) -> CraftaxBundle:
    """Validate and assemble a bundle from a pool dict, a rule vector and a goal multi-hot."""
    try:
        checked_pool = check_state_arrays(pool, batch_dims=1)
        checked_rules = check_rules(rules)
    except ValueError as err:
        raise BundleError(str(err)) from None
    goal_arr = np.asarray(goal)
    if goal_arr.shape != (NUM_ACHIEVEMENTS,) or goal_arr.dtype != bool:
        raise BundleError(f"goal must be a ({NUM_ACHIEVEMENTS},) bool array, got {goal_arr.shape}")
    if checked_pool["map"].shape[0] < 1:
        raise BundleError("a bundle needs at least one initial world")
    solved_at_start = checked_pool["achievements"][:, goal_arr].all(axis=1) & goal_arr.any()
    if solved_at_start.any():
        raise BundleError("the goal is already achieved in some initial world")
    return CraftaxBundle(pool=checked_pool, rules=checked_rules, goal=goal_arr.copy())


def bundle_from_built(levels: Sequence[BuiltLevel]) -> CraftaxBundle:
    """Stack K builds of one level (different seeds) into a bundle.

    Rules and goal must not depend on the seed: they are per level, not per world.
    """
    if not levels:
        raise BundleError("bundle_from_built needs at least one built level")
    first = levels[0]
    for i, level in enumerate(levels[1:], start=1):
        if not np.array_equal(level.rules, first.rules):
            raise BundleError(f"seed {i} set different rules than seed 0; rules must not be random")
        if not np.array_equal(level.goal, first.goal):
            raise BundleError(
                f"seed {i} set a different goal than seed 0; the goal must not be random"
            )
    pool = {name: np.stack([lv.state[name] for lv in levels]) for name in FIELD_NAMES}
    return make_bundle(pool, first.rules, first.goal)


def target_bundle(base_worlds: StateArrays) -> CraftaxBundle:
    """The target game: unedited Craftax worlds, normal rules, no goal (never "succeeds")."""
    return make_bundle(base_worlds, default_rules(), np.zeros((NUM_ACHIEVEMENTS,), bool))


def resize_pool(pool: StateArrays, size: int) -> StateArrays:
    """Cycle or cut a pool to exactly ``size`` worlds, so every slot has the same K."""
    count = pool["map"].shape[0]
    index = np.arange(size) % count
    return {name: value[index] for name, value in check_state_arrays(pool, 1).items()}
