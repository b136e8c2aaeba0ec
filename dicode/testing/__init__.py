"""Reusable test helpers (fakes allowed by the project rules: an LLM server only)."""
