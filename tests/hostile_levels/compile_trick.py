"""Compiles code from a string and runs it as a function body."""
# expect-stage: static_policy
# expect-error: 'compile' is not allowed
def build(level, rng):
    code = compile("import os", "<x>", "exec")
    return code
