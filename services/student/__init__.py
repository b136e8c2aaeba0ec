"""The student service: the PPO trainer from `dicode.student` driven by the archive.

`loop.ArchiveStudent` and `target.TargetEvaluator` are plain classes (usable without Ray);
`actors` wraps them as Ray actors that also export metrics to the Ray dashboard.
"""
