"""Writes a file with numpy.savetxt."""
# expect-stage: static_policy
# expect-error: attribute 'savetxt' is not allowed
import numpy


def build(level, rng):
    numpy.savetxt("/tmp/dicode_hostile_pwned_savetxt", numpy.eye(3))
