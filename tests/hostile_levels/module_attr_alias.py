"""Hides the module chain behind an alias: the forbidden module is reached through a name
bound to an allowed one."""
# expect-stage: static_policy
# expect-error: 'rand.mtrand' is the module 'numpy.random.mtrand'
import numpy

rand = numpy.random


def build(level, rng):
    op = rand.mtrand.operator
    op.attrgetter("x")(level)
