"""Do refactors of the student's PPO keep its numbers? A fingerprint per world.

Runs a few tiny iterations of every world's student through its public ``SlotTrainer``
(Tetris, with and without the detached lookahead; Craftax with a GRU and with a GTrXL; the
maze learning and only measuring), with a level swapped into slot 1 on the second iteration
(``slot_reset``) and the target's running return R̄ taking the values 0, 0.5, 3 and 40. Prints,
per world, a hash of the final network parameters, a hash of the runner's key and a headline
figure (the summed return and episode count of the iterations' tallies). Identical math gives
identical lines, so running it against two trees (chosen by ``PYTHONPATH``) shows whether a
change kept the figures bit-identical.

Run: ``PYTHONPATH=<tree> python benchmarks/ppo_identity.py [--only tetris,maze,...]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
from collections.abc import Callable, Iterable
from typing import Any

import jax
import numpy as np

R_BARS = (0.0, 0.5, 3.0, 40.0)  # R̄ of the iterations, in order
SWAP_AT = 1  # the iteration that finds a new level in slot 1


def digest(tree: Any) -> str:
    """A short hash of every leaf's bytes, in tree order."""
    h = hashlib.sha256()
    for leaf in jax.tree_util.tree_leaves(jax.device_get(tree)):
        h.update(np.ascontiguousarray(np.asarray(leaf)).tobytes())
    return h.hexdigest()[:16]


def drive(trainer: Any, level: Any, before: Callable[[int], None] = lambda i: None) -> str:
    """Run the iterations (a level placed in slot 1 at ``SWAP_AT``); the fingerprint line."""
    slots = trainer.config.num_slots
    returns, episodes = 0.0, 0
    for i, r_bar in enumerate(R_BARS):
        reset = np.zeros(slots, bool)
        if i == SWAP_AT:
            trainer.place(1, level)
            reset[1] = True
        before(i)
        for tally in trainer.iterate(reset, r_bar):
            returns += tally.return_sum
            episodes += tally.episodes
    runner = trainer.runner
    return (
        f"params {digest(runner.train.params)} rng {digest(runner.rng)} "
        f"return_sum {returns!r} episodes {episodes}"
    )


def tetris(detach: bool) -> str:
    from dicode.domains.tetris.schema import stack_levels, target_level
    from dicode.domains.tetris.student.config import PPOConfig
    from dicode.domains.tetris.student.trainer import TetrisSlotTrainer

    config = PPOConfig(
        num_slots=2, envs_per_slot=4, pool_size=2, num_steps=8, update_epochs=2,
        num_minibatches=2, column_features=4, row_features=2, hidden=8, train_piece_cap=5,
        detach_lookahead=detach, seed=3,
    )  # fmt: skip
    board = np.zeros((20, 10), np.uint8)
    board[:4, :9] = 1  # four nearly full rows: a goal of two lines
    garbage = dataclasses.replace(
        target_level(), board=jax.numpy.asarray(board), goal_lines=jax.numpy.int32(2)
    )
    return drive(TetrisSlotTrainer(config, 2, 10), stack_levels([garbage] * 2))


def craftax(student: str) -> str:
    from dicode.domains.craftax.builder import CraftaxLevel, build_level
    from dicode.domains.craftax.bundle import bundle_from_built
    from dicode.domains.craftax.state_codec import generate_base_worlds, unstack_arrays
    from dicode.domains.craftax.student.config import CraftaxPPOConfig
    from dicode.domains.craftax.student.trainer import CraftaxSlotTrainer

    config = CraftaxPPOConfig(
        student=student, num_slots=2, envs_per_slot=4, pool_size=2, target_refresh=1,
        num_steps=8, num_minibatches=2, update_epochs=2, layer_size=16, gtrxl_embed=8,
        gtrxl_heads=2, gtrxl_layers=2, gtrxl_memory=3, seed=5,
    )  # fmt: skip

    def stone_level(level: CraftaxLevel, rng: Any) -> None:
        level.set_inventory(stone=5)
        level.set_goal("place_stone")

    worlds = unstack_arrays(generate_base_worlds(seed=1, count=2))
    level = bundle_from_built([build_level(stone_level, w, s) for s, w in enumerate(worlds)])
    return drive(CraftaxSlotTrainer(config, 2, 10), level)


def maze(learn_pattern: Iterable[bool]) -> str:
    from dicode.domains.maze.builder import MazeLevel
    from dicode.domains.maze.generate import stack
    from dicode.domains.maze.level_checks import decode
    from dicode.domains.maze.student.config import MazePPOConfig
    from dicode.domains.maze.student.trainer import MazeSlotTrainer

    config = MazePPOConfig(
        num_slots=2, envs_per_slot=8, pool_size=4, target_refresh=2, num_steps=16,
        num_minibatches=2, update_epochs=2, embed_size=16, hidden_size=16, seed=7,
    )  # fmt: skip
    instances = []
    for i in range(4):
        level = MazeLevel(np.random.default_rng([11, i]))
        level.random_walls(10 + i)
        instances.append(level.to_arrays())
    trainer = MazeSlotTrainer(config, 2)
    learn = list(learn_pattern)

    def set_learn(i: int) -> None:
        trainer.learn = learn[i]

    return drive(trainer, decode(stack(instances)), set_learn)


WORLDS: dict[str, Callable[[], str]] = {
    "tetris": lambda: tetris(detach=True),
    "tetris_attached": lambda: tetris(detach=False),
    "craftax_gru": lambda: craftax("rnn"),
    "craftax_gtrxl": lambda: craftax("gtrxl"),
    "maze": lambda: maze([True] * len(R_BARS)),
    "maze_measure": lambda: maze([True, False, True, False]),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(WORLDS), help="comma-separated worlds")
    for name in parser.parse_args().only.split(","):
        print(f"{name}: {WORLDS[name]()}", flush=True)


if __name__ == "__main__":
    main()
