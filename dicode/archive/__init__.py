"""Curriculum algorithms over the archive (no SQL here; the store is `archive_db`).

- `graph`: the networkx lineage view, loaded from the store and refreshed incrementally;
- `status`: status letters A–D and learnability p(1−p);
- `selection`: DiCode parent selection (strict / lenient candidates, ∝ learnability);
- `active_set`: the bounded active set with compare-and-swap admission;
- `replay`: the PLR replay sampler (rank + staleness), data plus pure functions;
- `config`: every parameter in one frozen `ArchiveConfig`;
- `cli`: `dicode archive stats|export`.
"""
