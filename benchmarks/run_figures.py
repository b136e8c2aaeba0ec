"""Where the runners and tables import a run's figure and a table's verdict from: the functions
live in `services.run_figures`, which ships with the API (its experiments view reads the
figures files with them)."""

from services.run_figures import (
    LAST,
    LEVEL,
    Ablation,
    command_line,
    content_digest,
    edited,
    excludes_zero,
    figures_by_seed,
    headline_figures,
    interval_text,
    last_mean,
    mean,
    moved_word,
    paired_interval,
    record_digest,
    run_figure,
    summarise,
    welch_interval,
)

__all__ = [
    "LAST",
    "LEVEL",
    "Ablation",
    "command_line",
    "content_digest",
    "edited",
    "excludes_zero",
    "figures_by_seed",
    "headline_figures",
    "interval_text",
    "last_mean",
    "mean",
    "moved_word",
    "paired_interval",
    "record_digest",
    "run_figure",
    "summarise",
    "welch_interval",
]
