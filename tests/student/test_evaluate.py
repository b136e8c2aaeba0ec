"""The student's evaluator plays exactly the games of the Tetris evaluation protocol."""

from __future__ import annotations

import numpy as np

from dicode.domains.tetris.engine import EnvParams
from dicode.domains.tetris.evaluate import play
from dicode.domains.tetris.student.evaluate import (
    evaluate_greedy,
    greedy_action,
    make_greedy_evaluator,
)
from dicode.domains.tetris.student.slot_world import Trainer


def test_matches_the_protocols_play_for_the_same_policy(
    tiny_trainer: Trainer, target_slots
) -> None:
    params = tiny_trainer.init(3, target_slots).train.params
    ours = evaluate_greedy(make_greedy_evaluator(tiny_trainer.network, 3, 60, seed=5), params)

    def policy(key, board, piece):  # the protocol's policy signature
        return greedy_action(tiny_trainer.network, params, board, piece)

    theirs = play(policy, EnvParams(), games=3, max_pieces=60, seed=5)
    assert np.array_equal(ours.lines, np.asarray(theirs.lines))
    assert np.array_equal(ours.pieces, np.asarray(theirs.pieces))
    assert ours.pieces.min() > 0
