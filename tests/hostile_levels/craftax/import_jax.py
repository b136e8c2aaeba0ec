"""Imports JAX inside level code to run arbitrary computations."""
# expect-stage: static_policy
# expect-error: import of 'jax' is not allowed
import jax


def build(level, rng):
    level.set_goal("collect_wood")
