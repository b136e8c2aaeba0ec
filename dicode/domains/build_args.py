"""The argument checks every world's level builder shares.

Level code is written by a model, so a bad call must fail with a message that names the builder
method and the bad value: the repair prompt quotes it back.
"""

from __future__ import annotations

from numbers import Integral


class LevelBuildError(ValueError):
    """A builder method was called with an out-of-range or ill-typed argument."""


def fail(call: str, message: str) -> LevelBuildError:
    """The error for builder method ``call`` (raise it)."""
    return LevelBuildError(f"level.{call}: {message}")


def check_int(call: str, name: str, value: object, low: int, high: int) -> int:
    """``value`` as an int in ``low..high``, else a `LevelBuildError` naming ``call``/``name``."""
    # bool is an int subclass; True as a row number is almost certainly a bug.
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise fail(call, f"{name} must be an integer in {low}..{high}, got {value!r}")
    number = int(value)
    if not low <= number <= high:
        raise fail(call, f"{name} must be in {low}..{high}, got {number}")
    return number
