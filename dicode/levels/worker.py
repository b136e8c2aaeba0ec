"""The one-shot sandbox worker: builds one level's pool, answers with data, exits.

Run by ``dicode.levels.sandbox`` as ``python -I -B worker.py ROOT BUILDER CONFIG`` inside
bubblewrap (``CONFIG``: JSON with the allowed modules and the limits). Protocol:

1. start-up (trusted): import the allowed modules, the domain's builder and everything the
   answer needs; empty the environment;
2. lock down: rlimits (CPU seconds, address space, file size, processes, open files, no core
   dumps) and the seccomp allow-list (reading, writing and closing descriptors it already has,
   memory, exit; every other system call fails). If any of it cannot be installed, answer
   ``UNAVAILABLE <why>`` and exit: level code never runs without its walls;
3. write ``READY``, then read one JSON job from stdin until EOF:
   ``{"source", "pool_size", "seed", "print_chars", "base_npz"}``;
4. run the level with restricted builtins and an import guard, calling ``build`` once per
   instance with per-instance seeds; every library function used after the level ran (stacking,
   saving, writing) is bound before it runs;
5. write one JSON header line, then (if the build succeeded) the pool as ``.npz`` bytes (stored
   members, ``numpy.savez``), to the original stdout; everything the level prints goes to a
   capped buffer instead. The parent trusts none of it (``dicode.levels.answer``): level code
   in this process could write anything there.

Only the standard library and NumPy are imported here: no JAX, nothing from the caller.
"""

from __future__ import annotations

import base64
import builtins
import importlib
import io
import json
import os
import resource
import sys
import time
import traceback
import zipfile
from collections.abc import Callable
from typing import Any, cast

MAX_ERROR_CHARS = 2000
RECURSION_LIMIT = 400
UNAVAILABLE = b"UNAVAILABLE "
EXIT_UNAVAILABLE = 3  # exit status after answering UNAVAILABLE

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


def _import_guard(allowed: frozenset[str]) -> Any:
    """``__import__`` for level code: only the allowed modules (already imported at start-up)."""

    def guarded_import(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        wanted = [name, *(f"{name}.{item}" for item in fromlist or () if isinstance(item, str))]
        for module in wanted:
            reached = module == name or module in sys.modules
            if level or (reached and module not in allowed):
                raise ImportError(f"import of '{module}' is not allowed in level code")
        return importlib.__import__(name, globals, locals, fromlist, level)

    return guarded_import


def _restricted_builtins(allowed: frozenset[str]) -> dict[str, object]:
    table = {name: getattr(builtins, name) for name in _SAFE_BUILTINS}
    table["__import__"] = _import_guard(allowed)
    return table


def _warm_up_answer_path() -> None:
    """Exercise once what answering needs (npz in memory, zip, tracebacks) so every module it
    imports lazily is loaded before ``open`` is refused."""
    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, probe=np.zeros(2, np.uint8))
    np.savez_compressed(io.BytesIO(), probe=np.zeros(2, np.uint8))
    with np.load(io.BytesIO(buffer.getvalue()), allow_pickle=False) as npz:
        npz["probe"].sum()
    zipfile.is_zipfile(io.BytesIO(buffer.getvalue()))
    try:
        raise ValueError("probe")
    except ValueError as exc:
        _describe_error(exc, "probe")
    np.random.default_rng(np.random.SeedSequence(entropy=0, spawn_key=(0,)).spawn(2)[0])
    # Non-ASCII identifiers are normalised by the parser through ``unicodedata``.
    compile("\u00e9t\u00e9 = 1", "<probe>", "exec")
    try:
        np.empty(2**62, np.uint8)  # numpy's MemoryError formats its size through lazy imports
    except MemoryError as exc:
        str(exc)


def _lock_down(limits: dict[str, int]) -> str | None:
    """Apply the rlimits and the seccomp filter; returns None, or which wall could not be set."""
    from dicode.levels import seccomp

    used_cpu = resource.getrusage(resource.RUSAGE_SELF)
    cpu_cap = int(used_cpu.ru_utime + used_cpu.ru_stime) + 1 + limits["cpu_seconds"]
    with open("/proc/self/statm") as statm:
        vm_bytes = int(statm.read().split()[0]) * resource.getpagesize()
    memory_cap = vm_bytes + limits["memory_bytes"]
    settings = (
        ("RLIMIT_CPU", resource.RLIMIT_CPU, cpu_cap, cpu_cap + 1),
        ("RLIMIT_AS", resource.RLIMIT_AS, memory_cap, memory_cap),
        ("RLIMIT_FSIZE", resource.RLIMIT_FSIZE, limits["file_bytes"], limits["file_bytes"]),
        ("RLIMIT_NPROC", resource.RLIMIT_NPROC, 0, 0),
        ("RLIMIT_NOFILE", resource.RLIMIT_NOFILE, 64, 64),
        ("RLIMIT_CORE", resource.RLIMIT_CORE, 0, 0),
    )
    for name, which, soft, hard in settings:
        try:
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError) as exc:
            return f"the {name} limit could not be set: {exc}"
    return seccomp.install()


def _level_line(tb: object) -> int | None:
    line = None
    for frame in traceback.extract_tb(tb):  # type: ignore[arg-type]
        if frame.filename == "<level>":
            line = frame.lineno
    return line


# Resource exhaustion named in words, so a code model knows which wall it hit.
_EXHAUSTED = {
    MemoryError: "out of memory: the build needed more than the sandbox's memory limit",
    RecursionError: f"recursion too deep: the sandbox allows {RECURSION_LIMIT} nested calls",
    OutputLimitExceeded: "too much output",
}


def _describe_error(exc: BaseException, where: str) -> str:
    line = _level_line(exc.__traceback__)
    at = f" at line {line}" if line else ""
    exhausted = next((text for kind, text in _EXHAUSTED.items() if isinstance(exc, kind)), None)
    detail = f" ({exhausted})" if exhausted else ""
    try:
        message = str(exc)
    except Exception:  # a level's exception whose __str__ fails still gets described
        message = "<unprintable>"
    text = f"{where} raised {type(exc).__name__}{at}{detail}: {message}"
    return text[:MAX_ERROR_CHARS]


def _decode_base(job: dict) -> list[dict[str, Any]] | None:
    """Base worlds the parent sent (trusted data), one per instance."""
    import numpy as np

    if not job.get("base_npz"):
        return None
    raw = base64.b64decode(job["base_npz"])
    with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
        stacked = {key: npz[key] for key in npz.files}
    count = next(iter(stacked.values())).shape[0]
    return [{key: value[i] for key, value in stacked.items()} for i in range(count)]


def _run_job(
    job: dict,
    builder_module: object,
    output: CappedOutput,
    base: list[dict[str, Any]] | None,
    allowed: frozenset[str],
) -> tuple[dict, bytes]:
    import numpy as np

    # Everything the worker calls after level code ran is bound here, before it runs: a level
    # that replaces ``np.stack`` or a builder method on its shared module or class changes
    # nothing the worker does (and the parent checks the answer anyway).
    stack, save, new_buffer, clock = np.stack, np.savez, io.BytesIO, time.perf_counter
    seed_sequence, default_rng = np.random.SeedSequence, np.random.default_rng
    make_builder = builder_module.make_builder  # type: ignore[attr-defined]
    probe = make_builder(default_rng(0)) if base is None else make_builder(default_rng(0), base[0])
    to_arrays = type(probe).to_arrays
    pool_size = int(job["pool_size"])
    started = clock()
    namespace: dict[str, object] = {
        "__builtins__": _restricted_builtins(allowed),
        "__name__": "level",
    }
    try:
        code = compile(job["source"], "<level>", "exec")
        exec(code, namespace)
    except BaseException as exc:
        return {"ok": False, "error": _describe_error(exc, "the level module")}, b""
    build = namespace.get("build")
    if not callable(build):
        return {"ok": False, "error": "the level does not define build(level, rng)"}, b""
    instances = []
    for index in range(pool_size):
        seeds = seed_sequence(entropy=job["seed"], spawn_key=(index,)).spawn(2)
        builder_rng = default_rng(seeds[1])
        # Domains whose levels edit a generated world (Craftax) get instance i's base world.
        level = (
            make_builder(builder_rng)
            if base is None
            else make_builder(builder_rng, base[index % len(base)])
        )
        try:
            build(level, default_rng(seeds[0]))
        except BaseException as exc:
            return {"ok": False, "error": _describe_error(exc, f"build (instance {index})")}, b""
        if output.overflowed:
            break
        instances.append(to_arrays(level))
    if output.overflowed:
        return {"ok": False, "error": f"the level printed more than {output.cap} characters"}, b""
    pool = {key: stack([inst[key] for inst in instances]) for key in instances[0]}
    buffer = new_buffer()
    save(buffer, **cast(dict[str, Any], pool))
    return {"ok": True, "error": None, "build_seconds": clock() - started}, buffer.getvalue()


def _write_all(write: Callable[[int, memoryview], int], fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = write(fd, view)
        view = view[written:]


def main() -> None:
    root, builder_name, config = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    allowed = frozenset(config["allowed_modules"])
    # One BLAS thread: the lock-down below forbids creating threads anyway.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    sys.path.insert(0, root)
    for name in sorted(allowed):
        importlib.import_module(name)
    builder_module = importlib.import_module(builder_name)
    importlib.import_module("dicode.levels.seccomp")
    _warm_up_answer_path()
    os.environ.clear()  # nothing of the caller's environment is left to find

    result_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    problem = _lock_down(config["limits"])
    if problem:
        _write_all(os.write, result_fd, UNAVAILABLE + problem.encode("utf-8", "replace") + b"\n")
        os._exit(EXIT_UNAVAILABLE)
    _write_all(os.write, result_fd, b"READY\n")

    encode, write = json.dumps, os.write  # bound before level code can replace them
    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    os.close(0)
    base = _decode_base(job)
    os.dup2(devnull, 2)
    output = CappedOutput(job["print_chars"])
    sys.stdout = sys.stderr = output
    sys.setrecursionlimit(RECURSION_LIMIT)
    try:
        header, payload = _run_job(job, builder_module, output, base, allowed)
    except BaseException as exc:  # e.g. MemoryError while stacking the pool
        header, payload = {"ok": False, "error": _describe_error(exc, "the build")}, b""
    header["printed"] = output.getvalue()[:2000]
    _write_all(write, result_fd, encode(header).encode("utf-8") + b"\n" + payload)
    os._exit(0)


if __name__ == "__main__":
    main()
