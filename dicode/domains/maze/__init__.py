"""The grid-maze world: a 13×13 maze with walls, one goal and a partially observing agent, the
classic bench of curriculum methods (PLR, ACCEL). See ``docs/maze.md``. Importing this package
costs nothing (no JAX): the sandbox worker imports the builder from here."""
