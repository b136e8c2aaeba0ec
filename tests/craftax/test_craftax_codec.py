"""State schema and codec: real Craftax worlds survive the trip to NumPy and back."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from craftax.craftax.envs.craftax_symbolic_env import CraftaxSymbolicEnvNoAutoReset

from dicode.domains.craftax.bundle import BundleError, CraftaxBundle, target_bundle
from dicode.domains.craftax.schema import FIELD_NAMES, STATE_FIELDS, StateArrays, StateSchemaError
from dicode.domains.craftax.state_codec import (
    _world_generator,
    arrays_to_state,
    craftax_reset_state,
    state_to_arrays,
)


def test_schema_names_every_leaf_of_a_generated_world() -> None:
    state = _world_generator()(jax.random.PRNGKey(3))
    paths = [jax.tree_util.keystr(p) for p, _ in jax.tree_util.tree_flatten_with_path(state)[0]]
    assert [p.lstrip(".") for p in paths] == list(FIELD_NAMES)
    for (_, shape, dtype), leaf in zip(STATE_FIELDS, jax.tree_util.tree_leaves(state), strict=True):
        assert leaf.shape == shape and leaf.dtype == dtype


def test_round_trip_is_exact(worlds: list[StateArrays]) -> None:
    for world in worlds:
        back = state_to_arrays(arrays_to_state(world))
        for name in FIELD_NAMES:
            assert back[name].dtype == world[name].dtype
            np.testing.assert_array_equal(back[name], world[name], err_msg=name)


def test_pool_round_trip_keeps_batch_axis(base_pool: StateArrays) -> None:
    back = state_to_arrays(arrays_to_state(base_pool, batch_dims=1))
    assert back["map"].shape == (2, 9, 48, 48)
    np.testing.assert_array_equal(back["player_position"], base_pool["player_position"])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda w: w.pop("inventory.wood"), "inventory.wood"),
        (lambda w: w.update(map=w["map"][:, :10]), "'map'"),
        (lambda w: w.update(player_food=np.float32(3.5)), "'player_food'"),
        (lambda w: w.update(player_health=np.float32(np.nan)), "NaN"),
        (lambda w: w.update(bogus=np.zeros(1)), "bogus"),
    ],
)
def test_schema_rejects_bad_arrays_naming_the_field(
    worlds: list[StateArrays], edit: object, message: str
) -> None:
    world = dict(worlds[0])
    edit(world)  # type: ignore[operator]
    with pytest.raises(StateSchemaError, match=message):
        arrays_to_state(world)


def test_bundle_survives_flat_arrays(base_pool: StateArrays) -> None:
    bundle = target_bundle(base_pool)
    again = CraftaxBundle.from_arrays(bundle.to_arrays())
    assert again.pool_size == 2 and again.goal_names == []
    np.testing.assert_array_equal(again.pool["map"], bundle.pool["map"])
    with pytest.raises(BundleError, match="rules"):
        CraftaxBundle.from_arrays({k: v for k, v in bundle.to_arrays().items() if k != "rules"})


def test_reset_state_is_the_real_envs_reset_bit_for_bit() -> None:
    env = CraftaxSymbolicEnvNoAutoReset()
    key = jax.random.PRNGKey(5)
    _, want = env.reset(key, env.default_params)
    got = craftax_reset_state(key)
    for name, a, b in zip(
        FIELD_NAMES, jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True
    ):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=name)
