"""The Craftax student: PPO with a GRU (PPO-RNN) or a gated Transformer-XL (PPO-GTrXL) over
the pool engine, and the paper's evaluation."""
