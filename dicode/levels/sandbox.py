"""The sandbox runner: level code runs only here, in one-shot worker processes behind walls.

Walls around every build (see docs/levels.md); the sandbox assumes level code reaches ``os``
and builtins anyway, and makes that worthless:
- a separate process per level, in its own session/process group, killed as a group on a
  wall-clock timeout or when its answer is too large;
- bubblewrap: new user, PID (own ``/proc``), network, IPC and UTS namespaces, ``--clearenv``,
  a read-only view of only the paths Python and the library need, a private ``/tmp``,
  ``--die-with-parent``;
- inside the worker, before it takes a level: an emptied environment, rlimits on CPU seconds,
  address space, file size, processes, open files and core dumps, and a seccomp allow-list:
  the few system calls a build makes (read, write, close, memory, exit), EPERM for every other
  one, ``open`` included (``dicode.levels.seccomp``);
- a cap on what the level may print and on the size of the answer, and an answer read as
  hostile data: header, member sizes, compression, fields, dtypes and the requested pool size
  checked before anything is unpacked (``dicode.levels.answer``).

It fails closed: without a working bubblewrap, or when a worker cannot install its rlimits or
seccomp filter, no level code runs and every build answers ``unavailable`` with the reason and
the fix. Only ``DICODE_UNSAFE_NO_BUBBLEWRAP=1``, set by a person, runs levels without
bubblewrap (rlimits and seccomp still apply; every result carries a loud warning).

``SandboxPool`` keeps ``warm`` pre-started workers (NumPy and the builder already imported, the
walls already up) so a level does not pay interpreter start-up; each worker serves one level
and exits, and background threads refill the pool at once.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import importlib.util
import io
import json
import logging
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from dicode.levels.answer import AnswerRejected, PoolSchema, parse_header, read_pool
from dicode.levels.static_policy import ALLOWED_MODULES
from dicode.levels.worker import UNAVAILABLE

log = logging.getLogger(__name__)

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WORKER_SCRIPT = Path(__file__).resolve().with_name("worker.py")
#: Set to 1 by a person to run level code without bubblewrap (never a default).
UNSAFE_OPT_IN = "DICODE_UNSAFE_NO_BUBBLEWRAP"
NO_BWRAP_WARNING = (
    f"SANDBOX DEGRADED: {UNSAFE_OPT_IN}=1 is set, so level code ran without bubblewrap "
    "(no private network, PID space or read-only filesystem view); only rlimits, the seccomp "
    "filter, an empty environment and timeouts applied"
)
_CONTAINER_FIX = (
    "in a container, give the service the settings in docs/levels.md "
    "(security_opt: seccomp=unconfined, apparmor=unconfined, systempaths=unconfined)"
)
_OPT_IN_HINT = (
    f"To run level code without bubblewrap anyway (unsafe: for code you trust), set "
    f"{UNSAFE_OPT_IN}=1."
)


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot put up its walls here; the message says why and how to fix it."""


@dataclass(frozen=True)
class SandboxLimits:
    """Resource walls for one level build (all K instances together)."""

    wall_seconds: float = 10.0  # wall clock from hand-over to answer
    cpu_seconds: int = 5  # RLIMIT_CPU beyond what start-up used
    memory_bytes: int = 512 * 2**20  # RLIMIT_AS headroom beyond start-up
    file_bytes: int = 2**20  # RLIMIT_FSIZE
    print_chars: int = 16_384  # what the level may print
    answer_bytes: int = 8 * 2**20  # cap on the worker's answer
    startup_seconds: float = 30.0  # a worker that is not READY by then is discarded


@dataclass(frozen=True)
class BuildResult:
    """What came back from one sandboxed build: the pool arrays or an error, never both."""

    ok: bool
    error: str | None
    arrays: dict[str, np.ndarray] | None
    warnings: list[str] = field(default_factory=list)
    printed: str = ""
    wait_seconds: float = 0.0  # waiting for a warm worker
    run_seconds: float = 0.0  # hand-over to answer
    unavailable: bool = False  # the walls could not be put up: the level did not run
    bad_answer: bool = False  # the worker's answer broke the answer contract (forged or bad)


def isolation_problem() -> str | None:
    """Why bubblewrap cannot isolate level code on this host, with the fix; None when it can."""
    path = shutil.which("bwrap")
    if path is None:
        return (
            "the sandbox refuses to run level code: bubblewrap ('bwrap') is not on PATH. "
            "Install it: 'apt-get install bubblewrap' on Debian/Ubuntu ('make run' and "
            "'make test' do this when run as root), 'dnf install bubblewrap' on Fedora. "
            + _OPT_IN_HINT
        )
    failure = _probe_bubblewrap(path)
    if failure is None:
        return None
    return (
        f"the sandbox refuses to run level code: bubblewrap ({path}) cannot create its "
        f"namespaces here: {failure}. Fix: allow unprivileged user namespaces "
        "('sysctl -w kernel.unprivileged_userns_clone=1'; on Ubuntu 23.10+ also "
        "'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'), or "
        f"{_CONTAINER_FIX}. " + _OPT_IN_HINT
    )


def bubblewrap_available() -> bool:
    """Can bubblewrap create the sandbox on this host?"""
    return isolation_problem() is None


def unsafe_opt_in() -> bool:
    """Has a person asked, by name, to run level code without bubblewrap?"""
    return os.environ.get(UNSAFE_OPT_IN) == "1"


@functools.cache
def _probe_bubblewrap(path: str) -> str | None:
    """Start a trivial sandbox once per binary; returns None or what went wrong."""
    try:
        probe = subprocess.run(
            [*_bwrap_prefix(path), sys.executable, "-I", "-c", "pass"],
            env={},
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if probe.returncode != 0:
        return probe.stderr.decode(errors="replace").strip()[:500] or f"exit {probe.returncode}"
    return None


def _bwrap_prefix(bwrap: str, world_folder: str | None = None) -> list[str]:
    """bubblewrap arguments: namespaces, a read-only view of what Python needs, private /tmp.
    ``world_folder``: the folder of a builder outside the library (:func:`builder_folder`)."""
    args = [
        bwrap, "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534",
        "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL",
        "--hostname", "sandbox", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
    ]  # fmt: skip
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/usr"):
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    # Only the interpreter, its packages and the project's library: not the project root (which
    # may hold configuration), not /home, /root, /etc or the caller's /tmp.
    readable = {sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parents[1])}
    readable.add(str(PROJECT_ROOT / "dicode"))
    if world_folder is not None:
        readable.add(world_folder)
    for directory in sorted(p for p in readable if not p.startswith("/usr/")):
        args += ["--ro-bind", directory, directory]
    args += ["--chdir", "/tmp"]  # the private tmpfs is the working directory
    return args


def builder_folder(builder: str) -> str | None:
    """The folder of a world's builder module when it lies outside the library (a world of
    ``DICODE_WORLDS`` in the checkout, e.g. ``tests/worlds/corridor``), else None. Only that
    folder is added to the sandbox's view: the worker imports the builder from the project
    root, a world's folder holds its code, and the rest of the checkout stays unseen."""
    spec = importlib.util.find_spec(builder)
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).resolve().parent
    return None if folder.is_relative_to(PROJECT_ROOT / "dicode") else str(folder)


class _WorkerUnavailable(Exception):
    """A worker started but could not install its walls (rlimits or seccomp)."""


class _Worker:
    """One started worker process that has reported READY (its walls are up)."""

    def __init__(self, builder: str, limits: SandboxLimits, bwrap: str | None) -> None:
        # Working directory outside bubblewrap; inside it, the private /tmp is used instead.
        self.tmpdir = tempfile.mkdtemp(prefix="dicode-sandbox-")
        command = [
            sys.executable, "-I", "-B", str(WORKER_SCRIPT), str(PROJECT_ROOT), builder,
            json.dumps(worker_config(limits)),
        ]  # fmt: skip
        if bwrap is not None:
            command = [*_bwrap_prefix(bwrap, builder_folder(builder)), *command]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={},
            cwd=self.tmpdir,
            start_new_session=True,  # own process group: killed as a whole
            close_fds=True,
        )
        line = _read_until(self.process, b"\n", time.monotonic() + limits.startup_seconds, 4096)
        if line == b"READY\n":
            return
        stderr = b""
        self._stop()
        if self.process.stderr is not None:
            with contextlib.suppress(OSError, ValueError):
                stderr = self.process.stderr.read(4000)
        self.kill()
        # Only the worker's trusted start-up writes to this pipe before READY.
        if line is not None and line.startswith(UNAVAILABLE):
            raise _WorkerUnavailable(line[len(UNAVAILABLE) :].decode(errors="replace").strip())
        raise RuntimeError(
            f"sandbox worker failed to start: {line!r} {stderr.decode(errors='replace')}"
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def _stop(self) -> None:
        """Kill the worker's whole process group and reap the worker."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)

    def kill(self) -> None:
        """Stop the worker, close its pipes and remove its temporary directory."""
        self._stop()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def _read_until(
    process: subprocess.Popen[bytes], stop: bytes | None, deadline: float, cap: int
) -> bytes | None:
    """Read the process's stdout until ``stop`` (or EOF when None), the deadline or ``cap`` bytes.

    Returns the bytes read, or None when the deadline passed or more than ``cap`` bytes came.
    """
    assert process.stdout is not None
    fd = process.stdout.fileno()
    chunks = io.BytesIO()
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(timeout=remaining):
                return None
            chunk = os.read(fd, 1 if stop is not None else 65536)
            if not chunk:
                return chunks.getvalue()
            chunks.write(chunk)
            if chunks.tell() > cap:
                return None
            if stop is not None and chunk == stop:
                return chunks.getvalue()


class SandboxPool:
    """Warm pool of one-shot sandbox workers for one world's level builder.

    Thread-safe; ``build`` may be called from several threads. Close it (or use it as a
    context manager) to kill the idle workers. When the walls cannot be put up here,
    ``unavailable`` says why and every ``build`` answers that instead of running the level.
    """

    def __init__(
        self,
        builder: str,
        schema: PoolSchema,
        warm: int = 2,
        limits: SandboxLimits | None = None,
    ) -> None:
        """``builder``: the world's builder module (``Domain.builder_module``), which the
        worker imports before its walls go up and hands to level code as ``level``;
        ``schema``: the world's pool schema (``Domain.pool_schema``), which every answer must
        follow exactly."""
        self.builder = builder
        self.schema = schema
        self.limits = limits or SandboxLimits()
        self._warm = max(1, warm)
        self._idle: list[_Worker] = []
        self._starting = 0
        self._lock = threading.Condition()
        self._closed = False
        self._start_error: str | None = None
        self._bwrap: str | None = None
        self.isolated = True
        self.unavailable: str | None = isolation_problem()
        if self.unavailable is not None and unsafe_opt_in():
            log.warning(NO_BWRAP_WARNING)
            self.unavailable, self.isolated = None, False
        elif self.unavailable is None:
            self._bwrap = shutil.which("bwrap")
        # Long-lived threads start every worker (up to two at once, since start-up is mostly
        # CPU): bubblewrap's --die-with-parent is tied to the thread that forked it, so that
        # thread must outlive the workers. Nothing starts when the walls are unavailable.
        self._refill_threads = [
            threading.Thread(target=self._refill_loop, daemon=True)
            for _ in range(0 if self.unavailable else min(2, self._warm))
        ]
        for thread in self._refill_threads:
            thread.start()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _refill_loop(self) -> None:
        while True:
            with self._lock:
                while not self._closed and len(self._idle) + self._starting >= self._warm:
                    self._lock.wait()
                if self._closed or self.unavailable:
                    return
                self._starting += 1
            try:
                worker = _Worker(self.builder, self.limits, self._bwrap)
            except _WorkerUnavailable as exc:
                with self._lock:
                    self._starting -= 1
                    self.unavailable = (
                        f"the sandbox refuses to run level code: a worker could not put up its "
                        f"walls: {exc}. The rlimits and the seccomp filter need Linux on x86_64 "
                        f"or aarch64 with seccomp enabled; {_CONTAINER_FIX}."
                    )
                    self._lock.notify_all()
                return
            except (OSError, RuntimeError) as exc:
                log.error("%s", exc)
                with self._lock:
                    self._starting -= 1
                    self._start_error = str(exc)
                    self._lock.notify_all()
                time.sleep(1.0)
                continue
            with self._lock:
                self._starting -= 1
                if self._closed:
                    worker.kill()
                    return
                self._start_error = None
                self._idle.append(worker)
                self._lock.notify_all()

    def _take(self) -> _Worker | None:
        """A ready worker, or None when the walls are unavailable."""
        deadline = time.monotonic() + self.limits.startup_seconds
        with self._lock:
            while not self._idle:
                if self.unavailable:
                    return None
                if self._closed:
                    raise RuntimeError("the sandbox pool is closed")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RuntimeError(f"no sandbox worker became ready: {self._start_error}")
                self._lock.wait(timeout=remaining)
            worker = self._idle.pop(0)
            self._lock.notify_all()
            return worker

    def wait_ready(self) -> str | None:
        """Wait until a worker is ready or the walls turn out unavailable; returns the reason
        they are unavailable, or None (for start-up checks that must fail early)."""
        deadline = time.monotonic() + self.limits.startup_seconds
        with self._lock:
            while not self._idle and not self.unavailable and time.monotonic() < deadline:
                self._lock.wait(timeout=max(0.0, deadline - time.monotonic()))
            return self.unavailable

    def idle_pids(self) -> list[int]:
        """Process ids of the warm workers (the roots of their process groups)."""
        with self._lock:
            return [worker.pid for worker in self._idle]

    def build(
        self,
        source: str,
        pool_size: int = 32,
        seed: int = 0,
        base: dict[str, np.ndarray] | None = None,
    ) -> BuildResult:
        """Run a level's ``build`` ``pool_size`` times in a fresh worker.

        ``base``: for worlds whose levels edit a generated world (Craftax), a pool of base
        worlds (arrays with a leading axis) made in the parent; instance i edits world
        ``i % len``. They travel to the worker as data.

        Never raises because of the level: every failure comes back as ``BuildResult.error``;
        when the walls are unavailable the level does not run and ``unavailable`` is set.
        """
        started = time.perf_counter()
        worker = self._take()
        if worker is None:
            return BuildResult(False, self.unavailable, None, unavailable=True)
        handed_over = time.perf_counter()
        warnings = [] if self.isolated else [NO_BWRAP_WARNING]
        try:
            answer = self._exchange(worker, encode_job(source, pool_size, seed, self.limits, base))
        finally:
            worker.kill()
        return self._read_answer(answer, pool_size, warnings, handed_over - started, handed_over)

    def _exchange(self, worker: _Worker, job: bytes) -> bytes | str:
        """Hand ``job`` to ``worker``; its raw answer, or what went wrong (as text)."""
        limits = self.limits
        assert worker.process.stdin is not None
        try:
            worker.process.stdin.write(job)
            worker.process.stdin.close()
        except OSError as exc:
            return f"the sandbox worker died before the build: {exc}"
        deadline = time.monotonic() + limits.wall_seconds
        answer = _read_until(worker.process, None, deadline, limits.answer_bytes)
        if answer is not None:
            # No complete header line: the worker died (a limit, a crash) before answering.
            return answer if b"\n" in answer else _death_message(worker)
        if time.monotonic() >= deadline:
            return (
                f"timeout: the build did not finish within {limits.wall_seconds:g} s "
                "(wall clock); the worker was killed"
            )
        return f"the build's answer exceeded {limits.answer_bytes} bytes; the worker was killed"

    def _read_answer(
        self,
        answer: bytes | str,
        pool_size: int,
        warnings: list[str],
        wait_seconds: float,
        handed_over: float,
    ) -> BuildResult:
        """The build's result from a worker's raw answer, which is hostile data: its header
        and pool are checked against the schema and ``pool_size`` before anything is unpacked."""

        def result(
            error: str | None,
            arrays: dict[str, np.ndarray] | None = None,
            printed: str = "",
            bad_answer: bool = False,
        ) -> BuildResult:
            return BuildResult(
                ok=error is None,
                error=error,
                arrays=arrays,
                warnings=warnings,
                printed=printed,
                wait_seconds=wait_seconds,
                run_seconds=time.perf_counter() - handed_over,
                bad_answer=bad_answer,
            )

        if isinstance(answer, str):
            return result(answer)
        header_line, _, payload = answer.partition(b"\n")
        try:
            header = parse_header(header_line)
        except AnswerRejected as exc:
            return result(f"the worker's answer was rejected: {exc}", bad_answer=True)
        warnings = warnings + header.warnings
        if not header.ok:
            if payload:
                return result("the worker's answer was rejected: a failed build sent a pool",
                              printed=header.printed, bad_answer=True)  # fmt: skip
            return result(header.error, printed=header.printed)
        try:
            arrays = read_pool(payload, self.schema, pool_size)
        except AnswerRejected as exc:
            return result(f"the worker's answer was rejected: {exc}", printed=header.printed,
                          bad_answer=True)  # fmt: skip
        return result(None, arrays, header.printed)

    def close(self) -> None:
        """Kill the idle workers and stop refilling."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._lock.notify_all()
        for worker in idle:
            worker.kill()
        for thread in self._refill_threads:
            thread.join(timeout=10)


def sandbox_problem(builder: str) -> str | None:
    """Start one worker of ``builder`` and say why the sandbox cannot run level code here, with
    the fix; None when it can (for start-up checks: ``dicode run``, the services)."""
    with SandboxPool(builder, schema={}, warm=1) as pool:  # builds nothing: no schema needed
        return pool.wait_ready()


def worker_config(limits: SandboxLimits) -> dict[str, object]:
    """The worker's command-line configuration: the allowed modules and the limits it applies
    to itself (the integer ones)."""
    own_limits = {k: v for k, v in asdict(limits).items() if isinstance(v, int)}
    return {"allowed_modules": sorted(ALLOWED_MODULES), "limits": own_limits}


def encode_job(
    source: str,
    pool_size: int,
    seed: int,
    limits: SandboxLimits,
    base: dict[str, np.ndarray] | None,
) -> bytes:
    """The one JSON job a worker reads from its stdin."""
    job = {
        "source": source,
        "pool_size": pool_size,
        "seed": seed,
        "print_chars": limits.print_chars,
        "base_npz": _encode_base(base),
    }
    return json.dumps(job).encode("utf-8")


def _encode_base(base: dict[str, np.ndarray] | None) -> str | None:
    """Base worlds as base64 ``.npz`` text for the JSON job (compressed: maps are sparse)."""
    if base is None:
        return None
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **base)  # type: ignore[arg-type]
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _death_message(worker: _Worker) -> str:
    """Explain a worker that ended without an answer (killed by a limit, crashed, ...)."""
    try:
        code = worker.process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        return "the sandbox worker stopped answering"
    # bubblewrap reports a child killed by signal N as exit status 128 + N.
    number = -code if code < 0 else code - 128
    if number in {s.value for s in signal.Signals}:
        name = signal.Signals(number).name
        hint = {
            "SIGXCPU": " (CPU-time limit exceeded)",
            "SIGKILL": " (killed: a resource limit was exceeded)",
            "SIGSEGV": " (crashed: segmentation fault, e.g. stack exhausted)",
        }.get(name, "")
        return f"the sandbox worker was terminated by {name}{hint} before answering"
    return f"the sandbox worker exited with status {code} before answering"
