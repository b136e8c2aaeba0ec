"""Judges of Tetris placements (reference and LLM), their discrimination benchmark, the gate in
front of reward shaping, the shaping wrapper and the LLM player. See ``docs/judges.md``."""
