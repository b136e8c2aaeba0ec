"""A short target-only run beats the random policy on the target game (bounded runtime)."""

from __future__ import annotations

import numpy as np
import pytest

from dicode.domains.tetris.engine import EnvParams
from dicode.domains.tetris.evaluate import play
from dicode.domains.tetris.policies import make_policy
from dicode.domains.tetris.student.config import PPOConfig
from dicode.domains.tetris.student.evaluate import evaluate_greedy, make_greedy_evaluator
from dicode.domains.tetris.student.trainer import TetrisSlotTrainer
from dicode.student.loop import StudentLoop

GAMES, CAP, SEED = 10, 300, 7  # not the protocol's evaluation seed


@pytest.mark.slow
def test_short_training_clears_more_lines_than_random_play() -> None:
    config = PPOConfig(envs_per_slot=32, num_steps=32, hidden=16, num_minibatches=4, seed=3)
    trainer = TetrisSlotTrainer(config)
    loop = StudentLoop(trainer)
    for _ in range(25):  # 25.6k pieces
        loop.run_session(1)
    trained = evaluate_greedy(
        make_greedy_evaluator(trainer.ppo.network, GAMES, CAP, SEED), trainer.runner.train.params
    )
    random = play(make_policy("random"), EnvParams(), GAMES, CAP, SEED)
    random_lines = np.asarray(random.lines)
    assert trained.pieces.mean() > 1.5 * np.asarray(random.pieces).mean()
    assert trained.mean_lines >= random_lines.mean() + 1.0
