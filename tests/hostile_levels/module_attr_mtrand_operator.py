"""numpy.random.mtrand also hands over the operator module; from there os, and the environment
of this process leaks through the error text."""
# expect-stage: static_policy
# expect-error: 'numpy.random.mtrand' is the module 'numpy.random.mtrand'
# wall: rejected
import numpy.random


def build(level, rng):
    op = numpy.random.mtrand.operator
    sep = "_" * 2
    base = op.attrgetter(sep + "class" + sep + "." + sep + "base" + sep)(())
    for cls in op.methodcaller(sep + "subclasses" + sep)(base):
        if op.attrgetter(sep + "name" + sep)(cls) == "_wrap_close":
            os = op.attrgetter(sep + "init" + sep + "." + sep + "globals" + sep)(cls)
            raise ValueError(os["read"](os["open"]("/proc/self/environ", 0), 4000))
    raise RuntimeError("os not found")
