"""The Craftax student: PPO with GRU memory over the pool engine, and the paper's evaluation."""
