"""Craftax world for dicode: state schema and codec, level builder, bundles, pool-based engine.

NumPy-only modules (safe in the sandbox): ``catalog``, ``schema``, ``rules``, ``builder``,
``bundle``. JAX modules (trainer side): ``state_codec``, ``engine``, ``compilations``.
"""
