"""Copies a library function's globals onto a local function with functools.update_wrapper,
naming '__globals__' with a string built from variables."""
# expect-stage: static_policy
# expect-error: contains '__'
import functools


def build(level, rng):
    mark = "_"
    name = mark + mark + "globals" + mark + mark

    def holder():
        return None

    functools.update_wrapper(holder, functools.reduce, assigned=(), updated=(name,))
    raise ValueError(str(holder.sys))
