"""The corridor: a fourth, tiny world in one folder, found through ``DICODE_WORLDS``.

A row of at most 16 cells, some of them walls; the agent steps left or right and is paid 1 for
reaching the goal cell within 32 steps. It exists to prove the world seam: everything the
system needs of a world is in this folder (``docs/architecture.md`` walks through it). This
package is imported inside the level sandbox, so it imports nothing here.
"""
