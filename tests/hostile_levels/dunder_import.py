"""Imports os with the __import__ built-in."""
# expect-stage: static_policy
# expect-error: dunder name '__import__'
def build(level, rng):
    __import__("os").system("touch /tmp/dicode_hostile_pwned_dunder_import")
