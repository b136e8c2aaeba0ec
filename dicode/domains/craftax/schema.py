"""The fixed Craftax state schema: every field of a Craftax-Symbolic ``EnvState`` as a named
NumPy array (name, shape, dtype), so worlds can travel between processes as plain data.

Nested fields are named with dots (``inventory.wood``, ``melee_mobs.position``). Positions are
``(row, col)`` on a 48×48 map; maps are indexed ``[floor, row, col]``. NumPy only: the sandbox
worker imports this module.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from dicode.domains.craftax.catalog import MAP_SIZE, NUM_ACHIEVEMENTS, NUM_FLOORS

_F, _M = NUM_FLOORS, MAP_SIZE
_I32, _F32, _B, _U32 = np.dtype(np.int32), np.dtype(np.float32), np.dtype(bool), np.dtype(np.uint32)


def _mobs(prefix: str, n: int) -> list[tuple[str, tuple[int, ...], np.dtype]]:
    return [
        (f"{prefix}.position", (_F, n, 2), _I32),
        (f"{prefix}.health", (_F, n), _F32),
        (f"{prefix}.mask", (_F, n), _B),
        (f"{prefix}.attack_cooldown", (_F, n), _I32),
        (f"{prefix}.type_id", (_F, n), _I32),
    ]


_INVENTORY_SCALARS = (
    "wood", "stone", "coal", "iron", "diamond", "sapling", "pickaxe", "sword", "bow", "arrows",
)  # fmt: skip

# Order matches the leaves of ``craftax.craftax.craftax_state.EnvState`` (checked by tests).
STATE_FIELDS: tuple[tuple[str, tuple[int, ...], np.dtype], ...] = tuple(
    [
        ("map", (_F, _M, _M), _I32),
        ("item_map", (_F, _M, _M), _I32),
        ("mob_map", (_F, _M, _M), _B),
        ("light_map", (_F, _M, _M), _F32),
        ("down_ladders", (_F, 2), _I32),
        ("up_ladders", (_F, 2), _I32),
        ("chests_opened", (_F,), _B),
        ("monsters_killed", (_F,), _I32),
        ("player_position", (2,), _I32),
        ("player_level", (), _I32),
        ("player_direction", (), _I32),
        ("player_health", (), _F32),
        ("player_food", (), _I32),
        ("player_drink", (), _I32),
        ("player_energy", (), _I32),
        ("player_mana", (), _I32),
        ("is_sleeping", (), _B),
        ("is_resting", (), _B),
        ("player_recover", (), _F32),
        ("player_hunger", (), _F32),
        ("player_thirst", (), _F32),
        ("player_fatigue", (), _F32),
        ("player_recover_mana", (), _F32),
        ("player_xp", (), _I32),
        ("player_dexterity", (), _I32),
        ("player_strength", (), _I32),
        ("player_intelligence", (), _I32),
    ]
    + [(f"inventory.{name}", (), _I32) for name in _INVENTORY_SCALARS]
    + [
        ("inventory.armour", (4,), _I32),
        ("inventory.torches", (), _I32),
        ("inventory.ruby", (), _I32),
        ("inventory.sapphire", (), _I32),
        ("inventory.potions", (6,), _I32),
        ("inventory.books", (), _I32),
    ]
    + _mobs("melee_mobs", 3)
    + _mobs("passive_mobs", 3)
    + _mobs("ranged_mobs", 2)
    + _mobs("mob_projectiles", 3)
    + [("mob_projectile_directions", (_F, 3, 2), _I32)]
    + _mobs("player_projectiles", 3)
    + [
        ("player_projectile_directions", (_F, 3, 2), _I32),
        ("growing_plants_positions", (10, 2), _I32),
        ("growing_plants_age", (10,), _I32),
        ("growing_plants_mask", (10,), _B),
        ("potion_mapping", (6,), _I32),
        ("learned_spells", (2,), _B),
        ("sword_enchantment", (), _I32),
        ("bow_enchantment", (), _I32),
        ("armour_enchantments", (4,), _I32),
        ("boss_progress", (), _I32),
        ("boss_timesteps_to_spawn_this_round", (), _I32),
        ("light_level", (), _F32),
        ("achievements", (NUM_ACHIEVEMENTS,), _B),
        ("state_rng", (2,), _U32),
        ("timestep", (), _I32),
    ]
)
FIELD_NAMES: tuple[str, ...] = tuple(name for name, _, _ in STATE_FIELDS)

StateArrays = dict[str, np.ndarray]


class StateSchemaError(ValueError):
    """A dict of arrays does not match the Craftax state schema."""


def check_state_arrays(arrays: Mapping[str, np.ndarray], batch_dims: int = 0) -> StateArrays:
    """Validate names, shapes and dtypes (allowing ``batch_dims`` leading axes, equal across
    fields) and return a dict with every array cast to exactly the schema dtype.

    Raises ``StateSchemaError`` naming the first offending field.
    """
    missing = [n for n in FIELD_NAMES if n not in arrays]
    extra = [n for n in arrays if n not in FIELD_NAMES]
    if missing or extra:
        raise StateSchemaError(
            f"state fields differ from the schema: missing={missing} extra={extra}"
        )
    out: StateArrays = {}
    batch: tuple[int, ...] | None = None
    for name, shape, dtype in STATE_FIELDS:
        value = np.asarray(arrays[name])
        if value.ndim != len(shape) + batch_dims or value.shape[batch_dims:] != shape:
            raise StateSchemaError(
                f"field {name!r}: shape {value.shape}, expected {batch_dims} batch axes + {shape}"
            )
        lead = value.shape[:batch_dims]
        if batch is None:
            batch = lead
        elif lead != batch:
            raise StateSchemaError(f"field {name!r}: batch shape {lead} differs from {batch}")
        if value.dtype != dtype:
            if not np.can_cast(value.dtype, dtype, casting="same_kind"):
                raise StateSchemaError(f"field {name!r}: dtype {value.dtype}, expected {dtype}")
            value = value.astype(dtype)
        if dtype == _F32 and not np.all(np.isfinite(value)):
            raise StateSchemaError(f"field {name!r}: contains NaN or infinity")
        out[name] = value
    return out
