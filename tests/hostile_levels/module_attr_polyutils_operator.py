"""The reported escape: numpy.polynomial.polyutils hands over the operator module; attrgetter
with dunder names built at run time reaches os, which reads the planted secret file and the
parent's environment and leaks both through the error text."""
# expect-stage: static_policy
# expect-error: 'np.polynomial' is the module 'numpy.polynomial', which level code may not reach
# wall: rejected
import numpy as np


def build(level, rng):
    op = np.polynomial.polyutils.operator
    base = op.attrgetter(dunder("class") + "." + dunder("base"))(())
    for cls in op.methodcaller(dunder("subclasses"))(base):
        if op.attrgetter(dunder("name"))(cls) == "_wrap_close":
            os = op.attrgetter(dunder("init") + "." + dunder("globals"))(cls)
            secret = os["read"](os["open"]("/tmp/dicode_hostile_secret.txt", 0), 200)
            parent = os["read"](os["open"](f"/proc/{os['getppid']()}/environ", 0), 4000)
            raise ValueError(repr(secret) + repr(parent))
    raise RuntimeError("os not found")


def dunder(name):
    return "_" + "_" + name + "_" + "_"
