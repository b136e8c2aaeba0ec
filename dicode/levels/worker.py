"""The one-shot sandbox worker: builds one level's pool, answers with data, exits.

Run by ``dicode.levels.sandbox`` as ``python -I -B worker.py ROOT DOMAIN`` inside bubblewrap
(or, where the host forbids that, as a plain process with the same limits). Protocol:

1. start-up (trusted): import NumPy and the domain's builder, then write ``READY`` on stdout;
2. read one JSON job from stdin until EOF: ``{"source", "pool_size", "seed", "limits"}``;
3. lock down: rlimits (CPU seconds, address space, file size, processes, open files, no core
   dumps) and a seccomp filter (no processes, threads, exec, sockets, signals, writes);
4. run the level with restricted builtins and an import guard, calling ``build`` once per
   instance with per-instance seeds;
5. write one JSON header line, then (if the build succeeded) the pool as ``.npz`` bytes, to the
   original stdout; everything the level prints goes to a capped buffer instead.

Only the standard library and NumPy are imported here: no JAX, nothing from the caller.
"""

from __future__ import annotations

import builtins
import importlib
import io
import json
import os
import resource
import sys
import time
import traceback
from typing import Any, cast

BUILDER_MODULES = {"tetris": "dicode.domains.tetris.builder"}
ALLOWED_IMPORTS = ("math", "itertools", "functools", "collections", "numpy")
MAX_ERROR_CHARS = 2000
RECURSION_LIMIT = 400

_SAFE_BUILTINS = (
    "abs", "all", "any", "ascii", "bin", "bool", "callable", "chr", "complex", "dict",
    "divmod", "enumerate", "filter", "float", "frozenset", "hash", "hex", "int", "isinstance",
    "issubclass", "iter", "len", "list", "map", "max", "min", "next", "oct", "ord", "pow",
    "print", "range", "repr", "reversed", "round", "set", "slice", "sorted", "str", "sum",
    "tuple", "zip", "object", "super", "property", "staticmethod", "classmethod", "True",
    "False", "None", "NotImplemented", "Ellipsis", "__build_class__", "BaseException",
    "Exception", "ArithmeticError", "AssertionError", "IndexError", "KeyError",
    "LookupError", "NotImplementedError", "OverflowError", "RuntimeError", "StopIteration",
    "TypeError", "ValueError", "ZeroDivisionError",
)  # fmt: skip


class OutputLimitExceeded(BaseException):
    """The level printed more than the output cap (a BaseException: not caught by level code)."""


class CappedOutput(io.TextIOBase):
    """Stands in for stdout/stderr: keeps the first ``cap`` characters, flags any overflow."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[str] = []
        self.size = 0
        self.overflowed = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        if self.size + len(text) > self.cap:
            self.overflowed = True
            raise OutputLimitExceeded(f"the level printed more than {self.cap} characters")
        self.parts.append(text)
        self.size += len(text)
        return len(text)

    def getvalue(self) -> str:
        return "".join(self.parts)


def _guarded_import(
    name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
) -> Any:
    if level or name.split(".")[0] not in ALLOWED_IMPORTS:
        raise ImportError(f"import of '{name}' is not allowed in level code")
    return importlib.__import__(name, globals, locals, fromlist, level)


def _restricted_builtins() -> dict[str, object]:
    table = {name: getattr(builtins, name) for name in _SAFE_BUILTINS}
    table["__import__"] = _guarded_import
    return table


def _lock_down(limits: dict[str, int]) -> list[str]:
    """Apply rlimits and the seccomp filter; returns warnings for walls that could not be set."""
    from dicode.levels import seccomp

    warnings: list[str] = []
    used_cpu = resource.getrusage(resource.RUSAGE_SELF)
    cpu_now = int(used_cpu.ru_utime + used_cpu.ru_stime) + 1
    cpu_cap = cpu_now + limits["cpu_seconds"]
    with open("/proc/self/statm") as statm:
        vm_bytes = int(statm.read().split()[0]) * resource.getpagesize()
    settings = (
        (resource.RLIMIT_CPU, cpu_cap, cpu_cap + 1),
        (resource.RLIMIT_AS, vm_bytes + limits["memory_bytes"], vm_bytes + limits["memory_bytes"]),
        (resource.RLIMIT_FSIZE, limits["file_bytes"], limits["file_bytes"]),
        (resource.RLIMIT_NPROC, 0, 0),
        (resource.RLIMIT_NOFILE, 64, 64),
        (resource.RLIMIT_CORE, 0, 0),
    )
    for which, soft, hard in settings:
        try:
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError) as exc:
            warnings.append(f"rlimit {which} not set: {exc}")
    problem = seccomp.install()
    if problem:
        warnings.append(problem)
    return warnings


def _level_line(tb: object) -> int | None:
    line = None
    for frame in traceback.extract_tb(tb):  # type: ignore[arg-type]
        if frame.filename == "<level>":
            line = frame.lineno
    return line


def _describe_error(exc: BaseException, where: str) -> str:
    line = _level_line(exc.__traceback__)
    at = f" at line {line}" if line else ""
    text = f"{where} raised {type(exc).__name__}{at}: {exc}"
    return text[:MAX_ERROR_CHARS]


def _run_job(job: dict, builder_module: object, output: CappedOutput) -> tuple[dict, bytes]:
    import numpy as np

    started = time.perf_counter()
    namespace: dict[str, object] = {"__builtins__": _restricted_builtins(), "__name__": "level"}
    try:
        code = compile(job["source"], "<level>", "exec")
        exec(code, namespace)
    except BaseException as exc:
        return {"ok": False, "error": _describe_error(exc, "the level module")}, b""
    build = namespace.get("build")
    if not callable(build):
        return {"ok": False, "error": "the level does not define build(level, rng)"}, b""
    instances = []
    for index in range(job["pool_size"]):
        seeds = np.random.SeedSequence(entropy=job["seed"], spawn_key=(index,)).spawn(2)
        level = builder_module.make_builder(np.random.default_rng(seeds[1]))  # type: ignore[attr-defined]
        try:
            build(level, np.random.default_rng(seeds[0]))
        except BaseException as exc:
            return {"ok": False, "error": _describe_error(exc, f"build (instance {index})")}, b""
        if output.overflowed:
            break
        instances.append(level.to_arrays())
    if output.overflowed:
        return {"ok": False, "error": f"the level printed more than {output.cap} characters"}, b""
    pool = {key: np.stack([inst[key] for inst in instances]) for key in instances[0]}
    buffer = io.BytesIO()
    np.savez(buffer, **cast(dict[str, Any], pool))
    return {"ok": True, "error": None, "build_seconds": time.perf_counter() - started}, (
        buffer.getvalue()
    )


def main() -> None:
    root, domain = sys.argv[1], sys.argv[2]
    # One BLAS thread: the lock-down below forbids creating threads anyway.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    sys.path.insert(0, root)
    for name in ALLOWED_IMPORTS:
        importlib.import_module(name)
    builder_module = importlib.import_module(BUILDER_MODULES[domain])
    importlib.import_module("dicode.levels.seccomp")

    result_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.write(result_fd, b"READY\n")

    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    os.dup2(devnull, 2)
    output = CappedOutput(job["limits"]["print_chars"])
    sys.stdout = sys.stderr = output
    warnings = _lock_down(job["limits"])
    sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        header, payload = _run_job(job, builder_module, output)
    except BaseException as exc:  # e.g. MemoryError while stacking the pool
        header, payload = {"ok": False, "error": _describe_error(exc, "the build")}, b""
    header["warnings"] = warnings
    header["printed"] = output.getvalue()[:2000]
    message = json.dumps(header).encode("utf-8") + b"\n" + payload
    view = memoryview(message)
    while view:
        written = os.write(result_fd, view)
        view = view[written:]
    os._exit(0)


if __name__ == "__main__":
    main()
