"""Builds a dunder name with an f-string and chr() instead of string literals."""
# expect-stage: static_policy
# expect-error: a string built at run time contains '__'


def build(level, rng):
    name = f"{chr(95)}{chr(95)}globals{chr(95)}{chr(95)}"
    level.sequence(name)
