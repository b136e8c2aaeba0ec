"""Starts with a completely filled row."""
# expect-stage: schema
# expect-error: row 2 is full at the start
def build(level, rng):
    level.row(2, "##########")
