"""The Craftax PPO-GTrXL student: the gated Transformer-XL core against a step-by-step NumPy
replay (logits, values and the PPO loss), memory hidden after episode starts and slot swaps,
gates that start near the identity, no recompiles across level swaps, and the ways to choose it.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import typer

from dicode import domains
from dicode.domains.craftax import engine
from dicode.domains.craftax.compilations import count_compilations
from dicode.domains.craftax.schema import StateArrays
from dicode.domains.craftax.seed_levels import collect_basics, fight_zombies
from dicode.domains.craftax.student.config import CraftaxPPOConfig
from dicode.domains.craftax.student.gtrxl import GatedTransformerXL, Memory
from dicode.domains.craftax.student.networks import ActorCriticGTrXL, apply_policy, make_network
from dicode.domains.craftax.student.slot_world import Trainer
from dicode.domains.craftax.student.trainer import CraftaxSlotTrainer
from dicode.settings import RunSettings
from dicode.student.tally import env_slots
from services.student_cli import student_config
from tests.craftax.test_craftax_student import bundle_of

M = 3  # memory length of the tiny networks: shorter than their sequences, so entries age out
TINY_GTRXL = CraftaxPPOConfig(
    student="gtrxl",
    num_slots=2,
    envs_per_slot=2,
    pool_size=2,
    target_refresh=1,
    num_steps=4,
    num_minibatches=2,
    update_epochs=1,
    layer_size=16,
    gtrxl_embed=8,
    gtrxl_heads=2,
    gtrxl_layers=2,
    gtrxl_memory=M,
)


def tiny_network(gate_bias: float = 2.0) -> ActorCriticGTrXL:
    return ActorCriticGTrXL(
        5, 16, embed_size=8, num_heads=2, num_layers=2, memory_length=M, gate_bias=gate_bias
    )


def random_memory(rng: np.random.Generator, envs: int) -> Memory:
    """A full memory of arbitrary contents (as if each env were M steps into an episode)."""
    inputs = jnp.asarray(rng.normal(size=(envs, 2, M, 8)), jnp.float32)
    return Memory(inputs=inputs, length=jnp.full((envs,), M, jnp.int32))


# --- a step-by-step NumPy GTrXL: per env, a list of this episode's past layer inputs ---------
def _layer_norm(x: np.ndarray, p: dict) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-6) * p["scale"] + p["bias"]


def _dense(x: np.ndarray, p: dict) -> np.ndarray:
    return x @ p["kernel"] + p.get("bias", 0.0)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _gate(x: np.ndarray, y: np.ndarray, p: dict) -> np.ndarray:
    r = _sigmoid(_dense(y, p["w_r"]) + _dense(x, p["u_r"]))
    z = _sigmoid(_dense(y, p["w_z"]) + _dense(x, p["u_z"]))
    h = np.tanh(_dense(y, p["w_g"]) + _dense(r * x, p["u_g"]))
    return (1 - z) * x + z * h


def _attention(context: np.ndarray, p: dict) -> np.ndarray:
    """The newest row of ``context`` (K, D) attends to all K rows (distance K-1 .. 0)."""
    size = p["query"]["bias"].shape[1]
    q = np.einsum("d,dhc->hc", context[-1], p["query"]["kernel"]) + p["query"]["bias"]
    k = np.einsum("kd,dhc->khc", context, p["key"]["kernel"]) + p["key"]["bias"]
    v = np.einsum("kd,dhc->khc", context, p["value"]["kernel"]) + p["value"]["bias"]
    distance = np.arange(len(context))[::-1]
    logits = np.einsum("hc,khc->hk", q, k) / np.sqrt(size) + p["distance_bias"][:, distance]
    w = np.exp(logits - logits.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    out = np.einsum("hk,khc->hc", w, v)
    return np.einsum("hc,hcd->d", out, p["out"]["kernel"]) + p["out"]["bias"]


class NumpyGTrXL:
    """Plays one step at a time; ``past[env][layer]`` = that layer's inputs at the episode's
    previous steps (the last ``memory_length``), emptied when an episode starts."""

    def __init__(self, params: Any, envs: int, layers: int, memory_length: int) -> None:
        self.p = jax.tree_util.tree_map(lambda x: np.asarray(x, np.float64), params["params"])
        self.m, self.layers = memory_length, layers
        self.past: list[list[list[np.ndarray]]] = [[[] for _ in range(layers)] for _ in range(envs)]

    def step(self, env: int, obs: np.ndarray, start: bool) -> tuple[np.ndarray, float]:
        p = self.p
        if start:
            self.past[env] = [[] for _ in range(self.layers)]
        x = np.maximum(_dense(obs, p["embed"]), 0)
        for layer in range(self.layers):
            lp = p["gtrxl"][f"layer_{layer}"]
            context = np.stack([*self.past[env][layer], x])
            attended = _attention(_layer_norm(context, lp["attention_norm"]), lp["attention"])
            y = _gate(x, np.maximum(attended, 0), lp["attention_gate"])
            hidden = np.maximum(_dense(_layer_norm(y, lp["mlp_norm"]), lp["mlp_in"]), 0)
            out = _gate(y, np.maximum(_dense(hidden, lp["mlp_out"]), 0), lp["mlp_gate"])
            self.past[env][layer] = [*self.past[env][layer], x][-self.m :]
            x = out
        logits = _dense(np.maximum(_dense(x, p["actor_hidden"]), 0), p["actor_out"])
        value = _dense(np.maximum(_dense(x, p["critic_hidden"]), 0), p["critic_out"])[0]
        return logits, float(value)


class Steps(NamedTuple):
    """What the one PPO's update (``dicode.student.ppo.SlotPPO``) reads of a rollout with this
    policy, (T, N) each."""

    obs: jnp.ndarray
    start: jnp.ndarray
    action: jnp.ndarray
    log_prob: jnp.ndarray
    value: jnp.ndarray


def _log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def numpy_ppo_loss(
    logits: np.ndarray, values: np.ndarray, steps: Steps, adv: np.ndarray, target: np.ndarray
) -> dict[str, float]:
    """PPO's loss as written in the paper: clipped surrogate on minibatch-normalised
    advantages, clipped value loss, entropy (clip 0.2)."""
    logp_all = _log_softmax(logits)
    action = np.asarray(steps.action)
    logp = np.take_along_axis(logp_all, action[..., None], -1)[..., 0]
    ratio = np.exp(logp - np.asarray(steps.log_prob, np.float64))
    norm = (adv - adv.mean()) / (adv.std() + 1e-8)
    policy = -np.minimum(ratio * norm, np.clip(ratio, 0.8, 1.2) * norm).mean()
    old = np.asarray(steps.value, np.float64)
    clipped = old + np.clip(values - old, -0.2, 0.2)
    value = 0.5 * np.maximum((values - target) ** 2, (clipped - target) ** 2).mean()
    entropy = -(np.exp(logp_all) * logp_all).sum(-1).mean()
    return {"policy_loss": policy, "value_loss": value, "entropy": entropy}


def test_replay_and_ppo_loss_match_a_step_by_step_numpy_reference() -> None:
    config = replace(TINY_GTRXL, num_slots=1, envs_per_slot=3, num_minibatches=1)
    trainer = Trainer(config)
    train = jax.jit(trainer.init_train)(jax.random.PRNGKey(1))
    net, params = trainer.network, train.params
    n, warmup, steps = 3, 5, 6
    rng = np.random.default_rng(0)

    def observations(t: int) -> np.ndarray:
        return (rng.random((t, n, engine.OBS_SIZE)) < 0.05).astype(np.float32)

    reference = NumpyGTrXL(params, n, config.gtrxl_layers, M)
    # Warm-up as in a rollout (one step per call), so the replay starts from a full memory.
    play = jax.jit(net.apply)  # one compile per sequence length; eager flax is slower here
    memory = net.initial_hidden(n)
    for t, obs in enumerate(observations(warmup)):
        start = jnp.full((1, n), t == 0)
        memory, logits, value = play(params, memory, obs[None], start)
        for env in range(n):
            ref_logits, ref_value = reference.step(env, obs[env].astype(np.float64), t == 0)
            np.testing.assert_allclose(logits[0, env], ref_logits, rtol=1e-4, atol=1e-5)
            assert float(value[0, env]) == pytest.approx(ref_value, rel=1e-4, abs=1e-5)

    # The replayed sequence: env 0 starts an episode mid-way, env 1 at its first step.
    obs = observations(steps)
    starts = np.zeros((steps, n), bool)
    starts[3, 0] = starts[0, 1] = True
    ref = [[reference.step(e, obs[t, e].astype(np.float64), starts[t, e]) for e in range(n)]
           for t in range(steps)]  # fmt: skip
    ref_logits = np.array([[r[0] for r in row] for row in ref])
    ref_values = np.array([[r[1] for r in row] for row in ref])
    _, logits, values = play(params, memory, jnp.asarray(obs), jnp.asarray(starts))
    np.testing.assert_allclose(logits, ref_logits, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(values, ref_values, rtol=1e-4, atol=1e-5)

    # The PPO update's loss (1 epoch, 1 minibatch: measured before the step) on this sequence,
    # with old log-probs and values off the current ones so that both clips bite.
    action = rng.integers(0, engine.NUM_ACTIONS, (steps, n))
    old_logp = np.take_along_axis(_log_softmax(ref_logits), action[..., None], -1)[..., 0]
    traj = Steps(
        obs=jnp.asarray(obs),
        start=jnp.asarray(starts),
        action=jnp.asarray(action, jnp.int32),
        log_prob=jnp.asarray(old_logp + rng.normal(0, 0.3, (steps, n)), jnp.float32),
        value=jnp.asarray(ref_values + rng.normal(0, 0.3, (steps, n)), jnp.float32),
    )
    adv = rng.normal(size=(steps, n))
    target = ref_values + rng.normal(size=(steps, n))
    _, _, losses = jax.jit(trainer._update)(
        train, memory, traj, jnp.asarray(adv, jnp.float32), jnp.asarray(target, jnp.float32),
        jax.random.PRNGKey(2),
    )  # fmt: skip
    expected = numpy_ppo_loss(ref_logits, ref_values, traj, adv, target)
    for name, value in expected.items():
        assert float(losses[name]) == pytest.approx(value, rel=1e-4, abs=1e-6), name


def test_an_episode_start_hides_everything_before_it() -> None:
    net = tiny_network()
    rng = np.random.default_rng(3)
    n, steps, start = 2, 7, 4
    obs = jnp.asarray(rng.normal(size=(steps, n, 10)), jnp.float32)
    starts = jnp.zeros((steps, n), bool).at[start, 0].set(True)  # env 0 only
    params = net.init(jax.random.PRNGKey(0), net.initial_hidden(n), obs, starts)
    play = jax.jit(partial(apply_policy, net))
    other_obs = obs.at[:start].set(jnp.asarray(rng.normal(size=(start, n, 10)), jnp.float32))
    runs = []
    for memory, seq in ((random_memory(rng, n), obs), (random_memory(rng, n), other_obs)):
        # In two calls, so the hiding also crosses the memory carried between them.
        memory, first, v_first = play(params, memory, seq[:5], starts[:5])
        _, second, v_second = play(params, memory, seq[5:], starts[5:])
        runs.append((jnp.concatenate([first, second]), jnp.concatenate([v_first, v_second])))
    (logits_a, values_a), (logits_b, values_b) = runs
    # Env 0 from its start on: whatever came before (memory and steps) is invisible.
    np.testing.assert_array_equal(logits_a[start:, 0], logits_b[start:, 0])
    np.testing.assert_array_equal(values_a[start:, 0], values_b[start:, 0])
    # Before its start, and for env 1 (no start) throughout, the past does matter.
    assert not np.allclose(logits_a[:start, 0], logits_b[:start, 0])
    assert not np.allclose(values_a[start:, 1], values_b[start:, 1])


def test_gates_start_near_the_identity() -> None:
    rng = np.random.default_rng(4)
    x = jnp.asarray(np.abs(rng.normal(size=(4, 6, 8))), jnp.float32)  # (N, T, D) embeddings
    starts = jnp.zeros((4, 6), bool).at[:, 0].set(True)

    def gates_and_drift(gate_bias: float) -> tuple[float, float]:
        """Mean update gate z of every gate, and how far the core moves its input."""
        core = GatedTransformerXL(num_layers=2, num_heads=2, memory_length=M, gate_bias=gate_bias)
        memory = Memory.empty(4, 2, M, 8)
        params = core.init(jax.random.PRNGKey(0), memory, x, starts)
        (_, out), state = core.apply(params, memory, x, starts, mutable=["intermediates"])
        gates = jax.tree_util.tree_leaves(state["intermediates"])
        assert len(gates) == 2 * 2  # the attention and the MLP gate of each layer
        drift = float(jnp.linalg.norm(out - x) / jnp.linalg.norm(x))
        return float(np.mean([np.mean(g) for g in gates])), drift

    z, drift = gates_and_drift(2.0)  # the default b_g
    assert z == pytest.approx(float(jax.nn.sigmoid(-2.0)), abs=0.05)  # ≈ 0.12
    z_open, drift_open = gates_and_drift(0.0)
    z_shut, drift_shut = gates_and_drift(4.0)
    assert z_open == pytest.approx(0.5, abs=0.1) and z_shut < 0.05
    # The larger b_g, the closer the untrained core is to the identity.
    assert drift_shut < 0.2 and drift_shut < drift < 0.7 * drift_open


@pytest.fixture(scope="module")
def gtrxl_trainer() -> CraftaxSlotTrainer:
    """A tiny PPO-GTrXL student whose iteration is compiled (once, here)."""
    trainer = CraftaxSlotTrainer(TINY_GTRXL, eval_envs=2, eval_max_steps=10)
    trainer.iterate(np.zeros(TINY_GTRXL.num_slots, bool), 0.0)
    return trainer


def test_level_swaps_never_recompile(
    gtrxl_trainer: CraftaxSlotTrainer, worlds: list[StateArrays]
) -> None:
    t = gtrxl_trainer
    basics = bundle_of(worlds, collect_basics.build)
    zombies = bundle_of(worlds, fight_zombies.build)
    t.place(0, basics)  # compiles the slot writer outside the count
    traces = t.ppo.trace_count
    with count_compilations() as compiles:
        for slot, bundle in [(1, basics), (0, zombies), (1, None), (0, basics)]:
            t.place(slot, bundle)
            t.iterate(np.arange(TINY_GTRXL.num_slots) == slot, 0.0)
    assert compiles.count == 0
    assert t.ppo.trace_count == traces and t.ppo.iterate._cache_size() == 1
    memory = t.runner.hidden
    assert isinstance(memory, Memory)
    assert memory.inputs.shape == (TINY_GTRXL.num_envs, 2, M, 8)


def test_a_swapped_slot_starts_with_its_memory_hidden(gtrxl_trainer: CraftaxSlotTrainer) -> None:
    t, runner = gtrxl_trainer, gtrxl_trainer.runner
    in_slot_1 = np.asarray(env_slots(TINY_GTRXL.num_slots, TINY_GTRXL.envs_per_slot)) == 1
    noise = np.random.default_rng(5).normal(0, 10, runner.hidden.inputs.shape)
    # Slot 1's envs get a different, fully visible memory; everything else is the same.
    scrambled = Memory(
        inputs=jnp.where(in_slot_1[:, None, None, None], noise, runner.hidden.inputs),
        length=jnp.where(in_slot_1, M, runner.hidden.length),
    )
    other = replace(runner, hidden=scrambled)

    def params_after(start: Any, slot_reset: list[bool]) -> list[np.ndarray]:
        new, _, _ = t.ppo.iterate(start, t.slots, jnp.asarray(slot_reset), jnp.float32(0.0))
        return [np.asarray(x) for x in jax.tree_util.tree_leaves(new.train.params)]

    # Slot 1 swapped (slot_reset): its old memory is invisible, so the whole update is the same.
    swapped = [params_after(r, [False, True]) for r in (runner, other)]
    for a, b in zip(*swapped, strict=True):
        np.testing.assert_array_equal(a, b)
    # Not swapped: the memory is read, and the update differs.
    kept = [params_after(r, [False, False]) for r in (runner, other)]
    assert any(not np.array_equal(a, b) for a, b in zip(*kept, strict=True))


def test_the_student_is_chosen_by_config_cli_and_profile() -> None:
    craftax = domains.get("craftax")
    assert student_config(craftax, 20_000, 0, None, anneal=False).student == "rnn"
    gtrxl = student_config(craftax, 20_000, 0, ['student="gtrxl"'], anneal=False)  # --set
    assert gtrxl.student == "gtrxl"
    with pytest.raises(typer.BadParameter, match="student must be one of rnn, gtrxl"):
        student_config(craftax, 20_000, 0, ['student="lstm"'], anneal=False)
    smoke = domains.profile(craftax, "smoke_gtrxl", seed=2)  # dicode run --profile smoke_gtrxl
    assert smoke.student.ppo.student == "gtrxl" and smoke.student.ppo.seed == 2
    assert RunSettings.from_dict(smoke.to_dict(), craftax) == smoke  # the stored run keeps it
    assert isinstance(make_network(smoke.student.ppo, engine.NUM_ACTIONS), ActorCriticGTrXL)
