"""The Tetris world: a pure-JAX engine compiled once, levels as data.

Modules: ``schema`` (state schema, ``TetrisLevel``), ``pieces`` (shapes and SRS rotation
states), ``placements`` (the 4·W placement action space, legality, batched afterstates),
``engine`` (``reset`` / ``step`` / ``success``: ``dicode.environment``'s interface),
``legacy`` (the field report's 40-action encoding). See ``docs/tetris.md``.
"""
