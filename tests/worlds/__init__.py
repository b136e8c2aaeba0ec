"""Worlds that live outside the library, found through ``DICODE_WORLDS`` (``dicode.domains``)."""
