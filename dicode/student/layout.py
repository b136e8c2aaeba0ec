"""The slot layout every world's student shares: S slots × E environments × T steps.

:class:`SlotLayout` is a mixin for a world's frozen config dataclass (which declares the
fields, with its own defaults and comments); :class:`LayoutTrainer` gives a world's trainer
the :class:`~dicode.student.loop.SlotTrainer` properties that follow from its config and runner.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any


class SlotLayout:
    """Derived sizes of a config with ``num_slots``, ``envs_per_slot`` and ``num_steps``."""

    num_slots: int
    envs_per_slot: int
    num_steps: int

    @property
    def num_envs(self) -> int:
        return self.num_slots * self.envs_per_slot

    @property
    def batch_size(self) -> int:
        """Environment steps per iteration, every slot's counted."""
        return self.num_envs * self.num_steps

    def to_dict(self) -> dict[str, Any]:
        """Plain dict, for recording the run's configuration."""
        return asdict(self)  # type: ignore[call-overload]


class LayoutTrainer:
    """``num_slots``, ``batch_size`` and ``iteration`` of a trainer with ``config``/``runner``."""

    config: SlotLayout
    runner: Any  # carries ``iteration``

    @property
    def num_slots(self) -> int:
        return self.config.num_slots

    @property
    def batch_size(self) -> int:
        return self.config.batch_size

    @property
    def iteration(self) -> int:
        return int(self.runner.iteration)
