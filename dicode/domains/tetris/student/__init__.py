"""The Tetris student: PPO scoring afterstates over level slots, its network, environment,
evaluation and the DQN baseline."""
