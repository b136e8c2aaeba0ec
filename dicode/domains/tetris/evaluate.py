"""The evaluation protocol for the standard (target) game; see ``docs/evaluation.md``.

Game ``i`` of a run with seed ``S`` uses the JAX key ``fold_in(key(S), i)``, split into a reset
key and a play key; at step ``t`` the play key is folded with ``t`` and split into a policy key
and an engine key. All games run at once
(vmap) inside one ``lax.while_loop`` that stops when every game is over or has placed
``max_pieces`` pieces (the cap). A capped game counts its lines up to the cap.
"""

from __future__ import annotations

import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris import engine
from dicode.domains.tetris.engine import EnvParams, EnvState
from dicode.domains.tetris.policies import Policy, make_policy

DEFAULT_SEED = 0
DEFAULT_GAMES = 20
CAPS = (1_000, 10_000)


def play(policy: Policy, params: EnvParams, games: int, max_pieces: int, seed: int) -> EnvState:
    """Play ``games`` standard games with ``policy`` up to ``max_pieces`` each; final states."""
    game_keys = jax.vmap(lambda i: jax.random.fold_in(jax.random.key(seed), i))(jnp.arange(games))
    reset_keys, play_keys = jnp.moveaxis(jax.vmap(jax.random.split)(game_keys), 1, 0)

    def one_step(play_key: jax.Array, state: EnvState, t: jnp.ndarray) -> EnvState:
        key_policy, key_env = jax.random.split(jax.random.fold_in(play_key, t))
        action = policy(key_policy, state.board, state.piece)
        _, state, _, _, _ = engine.step(key_env, state, action, params)
        return state

    def still_playing(carry: tuple[jnp.ndarray, EnvState]) -> jnp.ndarray:
        t, states = carry
        return (t < max_pieces) & jnp.any(~states.done)

    def advance(carry: tuple[jnp.ndarray, EnvState]) -> tuple[jnp.ndarray, EnvState]:
        t, states = carry
        states = jax.vmap(one_step, in_axes=(0, 0, None))(play_keys, states, t)
        return t + 1, states

    @jax.jit
    def run() -> EnvState:
        _, states = jax.vmap(lambda k: engine.reset(k, params))(reset_keys)
        _, states = jax.lax.while_loop(still_playing, advance, (jnp.int32(0), states))
        return states

    return run()


def _summary(values: np.ndarray) -> dict[str, float]:
    return {
        "mean": float(np.mean(values)),
        "median": float(np.median(values)),
        "min": float(np.min(values)),
        "max": float(np.max(values)),
    }


def evaluate(
    policy: str,
    games: int = DEFAULT_GAMES,
    max_pieces: int = CAPS[0],
    seed: int = DEFAULT_SEED,
    legacy_actions: bool = False,
    seven_bag: bool = False,
) -> dict[str, Any]:
    """Run the protocol for one policy; returns the metrics as plain JSON-ready data."""
    if games < 1 or max_pieces < 1:
        raise ValueError(f"games and max_pieces must be positive, got {games} and {max_pieces}")
    params = EnvParams(legacy_actions=legacy_actions, seven_bag=seven_bag)
    started = time.perf_counter()
    final = play(make_policy(policy, legacy_actions), params, games, max_pieces, seed)
    return protocol_report(
        policy,
        np.asarray(final.lines),
        np.asarray(final.pieces),
        np.asarray(final.game_over),
        max_pieces=max_pieces,
        seed=seed,
        legacy_actions=legacy_actions,
        seven_bag=seven_bag,
        started=started,
    )


def protocol_report(
    policy: str,
    lines: np.ndarray,
    pieces: np.ndarray,
    game_over: np.ndarray,
    *,
    max_pieces: int,
    seed: int,
    legacy_actions: bool,
    seven_bag: bool,
    started: float,
) -> dict[str, Any]:
    """The protocol's JSON report from per-game results (any policy, jitted or not).

    A game counts as capped when it reached ``max_pieces`` without a game over.
    """
    capped = (pieces >= max_pieces) & ~game_over
    return {
        "policy": policy,
        "legacy_actions": legacy_actions,
        "randomiser": "7-bag" if seven_bag else "uniform",
        "seed": seed,
        "games": len(lines),
        "max_pieces": max_pieces,
        "lines": _summary(lines),
        "pieces": _summary(pieces),
        "capped": int(capped.sum()),
        "per_game_lines": lines.tolist(),
        "seconds": round(time.perf_counter() - started, 2),
    }
