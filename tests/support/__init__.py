"""Reusable helpers of the tests and benchmarks, outside the library (``dicode`` never imports
them). Fakes allowed by the project rules: an LLM server only (``fake_openai`` and its scripted
judges); the rest are real: local model servers (llama.cpp, vLLM on CPU) and the crawler of the
deployment checks."""
