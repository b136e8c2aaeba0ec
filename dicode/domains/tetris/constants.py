"""Tetris board and piece constants, free of JAX so the sandboxed level builder can import them."""

PIECE_NAMES = "IOTSZJL"
NUM_PIECES = len(PIECE_NAMES)
BOARD_HEIGHT = 20
BOARD_WIDTH = 10
# Longest fixed opening sequence a level may prescribe; shorter ones are padded with -1.
MAX_SEQUENCE = 64
