"""Runnable measurements: each prints its figures beside its anchor and writes docs/figures/."""
