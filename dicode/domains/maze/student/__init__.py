"""The maze student: PPO with a GRU over the maze engine's level slots (``docs/maze.md``)."""
