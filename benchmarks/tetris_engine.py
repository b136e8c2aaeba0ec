"""Placement steps per second: our vmapped JAX engine vs Tetris-Gymnasium's grouped wrapper.

One "placement step" = enumerate every candidate afterstate of the current piece, pick a
random legal placement, and step the game (auto-reset when a game ends). Both sides do that:

- ours: ``afterstates`` + ``engine.step`` vmapped over ``--batch`` games inside one jitted
  ``lax.scan`` (random legal action from the afterstates' legality mask);
- Tetris-Gymnasium 0.3.1: ``GroupedActionsObservations`` over ``tetris_gymnasium/Tetris``
  (its observation is the 40 afterstate boards), random legal action from its action mask,
  one environment, in a separate virtual environment ``.venv-bench/`` because the package
  pins an old JAX. The script creates that environment on first use
  (``pip install tetris-gymnasium==0.3.1``) and runs the measurement there in a subprocess.

Run: ``python benchmarks/tetris_engine.py [--batch 512] [--seconds 20]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp

from dicode.domains.tetris import engine
from dicode.domains.tetris.engine import EnvParams, EnvState
from dicode.domains.tetris.placements import afterstates

ROOT = Path(__file__).resolve().parent.parent
BENCH_VENV = ROOT / ".venv-bench"
TETRIS_GYMNASIUM = "tetris-gymnasium==0.3.1"

# Runs inside .venv-bench: random legal grouped actions for a fixed wall-clock budget.
_GYMNASIUM_SNIPPET = r"""
import json, sys, time
import gymnasium as gym
import numpy as np
from tetris_gymnasium.envs.tetris import Tetris  # noqa: F401  (registers the env id)
from tetris_gymnasium.wrappers.grouped import GroupedActionsObservations

seconds = float(sys.argv[1])
env = GroupedActionsObservations(gym.make("tetris_gymnasium/Tetris"))
rng = np.random.default_rng(0)
obs, info = env.reset(seed=0)

def legal_actions(info):
    return np.flatnonzero(np.asarray(info["action_mask"]))

steps, games = 0, 0
for _ in range(20):  # warm-up
    obs, r, term, trunc, info = env.step(int(rng.choice(legal_actions(info))))
    if term or trunc:
        obs, info = env.reset()
start = time.perf_counter()
while time.perf_counter() - start < seconds:
    obs, r, term, trunc, info = env.step(int(rng.choice(legal_actions(info))))
    steps += 1
    if term or trunc:
        games += 1
        obs, info = env.reset()
elapsed = time.perf_counter() - start
print(json.dumps({"steps": steps, "games": games, "seconds": elapsed,
                  "steps_per_second": steps / elapsed,
                  "observation_shape": list(np.asarray(obs).shape)}))
"""


def ensure_bench_venv() -> Path:
    """Create ``.venv-bench`` with Tetris-Gymnasium on first use; return its python."""
    python = BENCH_VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {BENCH_VENV} with {TETRIS_GYMNASIUM} (first run only) …", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(BENCH_VENV)], check=True)
    probe = subprocess.run([str(python), "-c", "import tetris_gymnasium"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", TETRIS_GYMNASIUM], check=True)
    return python


def measure_gymnasium(seconds: float) -> dict[str, float]:
    """Steps/s of Tetris-Gymnasium's grouped wrapper, measured in its own venv."""
    python = ensure_bench_venv()
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    out = subprocess.run(
        [str(python), "-c", _GYMNASIUM_SNIPPET, str(seconds)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure_ours(batch: int, seconds: float, unroll: int = 50) -> dict[str, float]:
    """Steps/s of the vmapped engine with afterstate enumeration, auto-resetting games."""
    params = EnvParams()

    def one(key: jax.Array, state: EnvState) -> tuple[EnvState, jnp.ndarray]:
        key_act, key_step, key_reset = jax.random.split(key, 3)
        candidates = afterstates(state.board, state.piece)
        noise = jax.random.gumbel(key_act, candidates.legal.shape)
        action = jnp.argmax(jnp.where(candidates.legal, noise, -jnp.inf))
        _, state, _, done, _ = engine.step(key_step, state, action, params)
        _, fresh = engine.reset(key_reset, params)
        state = jax.tree_util.tree_map(lambda a, b: jnp.where(done, a, b), fresh, state)
        return state, done

    @jax.jit
    def run(key: jax.Array, states: EnvState) -> tuple[EnvState, jnp.ndarray]:
        def body(carry: EnvState, step_key: jax.Array) -> tuple[EnvState, jnp.ndarray]:
            keys = jax.random.split(step_key, batch)
            carry, done = jax.vmap(one)(keys, carry)
            return carry, jnp.sum(done)

        states, finished = jax.lax.scan(body, states, jax.random.split(key, unroll))
        return states, jnp.sum(finished)

    key = jax.random.key(0)
    _, states = jax.vmap(lambda k: engine.reset(k, params))(jax.random.split(key, batch))
    states, _ = run(key, states)  # compile + warm-up
    jax.block_until_ready(states)
    steps, games, calls = 0, 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or calls == 0:
        key, sub = jax.random.split(key)
        states, finished = run(sub, states)
        games += int(finished)
        steps += batch * unroll
        calls += 1
    elapsed = time.perf_counter() - start
    return {"steps": steps, "games": games, "seconds": elapsed, "steps_per_second": steps / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=512, help="games stepped in parallel")
    parser.add_argument("--seconds", type=float, default=20.0, help="time budget per side")
    args = parser.parse_args()

    ours = measure_ours(args.batch, args.seconds)
    # Also one game at a time, for a like-for-like figure against the single gym env.
    ours_single = measure_ours(1, args.seconds)
    theirs = measure_gymnasium(args.seconds)
    ratio = ours["steps_per_second"] / theirs["steps_per_second"]
    print(f"device: {jax.devices()[0].platform}, cores: {os.cpu_count()}")
    print(
        f"dicode engine (vmap {args.batch}, afterstates incl.): "
        f"{ours['steps_per_second']:,.0f} placement steps/s"
    )
    print(
        f"dicode engine (1 game, afterstates incl.): "
        f"{ours_single['steps_per_second']:,.0f} placement steps/s"
    )
    print(
        f"Tetris-Gymnasium 0.3.1 GroupedActionsObservations (1 env): "
        f"{theirs['steps_per_second']:,.0f} placement steps/s"
    )
    print(f"ratio: {ratio:,.1f}x")
    summary = {"ours": ours, "ours_single": ours_single, "tetris_gymnasium": theirs, "ratio": ratio}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
