"""World-neutral LLM plumbing: an OpenAI-compatible client with retries and timeouts
(``client``), structured JSON output (``structured``). Teachers, judges and the LLM player use it.
"""
