"""Reaches os through an allowed package's submodule attribute."""
# expect-stage: static_policy
# expect-error: attribute 'lib' is not allowed
import numpy


def build(level, rng):
    numpy.lib.os.system("touch /tmp/dicode_hostile_pwned_submodule")
