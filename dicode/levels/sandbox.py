"""The sandbox runner: level code runs only here, in one-shot worker processes behind walls.

Walls around every build (see docs/levels.md):
- a separate process per level, in its own session/process group, killed as a group on a
  wall-clock timeout or when its answer is too large;
- an empty environment (no secrets), a private temporary directory as working directory;
- bubblewrap, where the host allows it: new user, PID, network, IPC and UTS namespaces, a
  read-only view of only the paths Python and the project need, a private ``/tmp``,
  ``--die-with-parent``;
- inside the worker, before level code runs: rlimits on CPU seconds, address space, file
  size, processes, open files and core dumps, plus a seccomp filter refusing processes,
  threads, exec, sockets, signals and filesystem writes (``dicode.levels.seccomp``);
- a cap on what the level may print and on the size of the answer.

``SandboxPool`` keeps ``warm`` pre-started workers (NumPy and the builder already imported)
so a level does not pay interpreter start-up; each worker serves one level and exits, and a
background thread refills the pool at once.
"""

from __future__ import annotations

import contextlib
import functools
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

from dicode.levels.worker import BUILDER_MODULES

log = logging.getLogger(__name__)

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WORKER_SCRIPT = Path(__file__).resolve().with_name("worker.py")
BWRAP = "/usr/bin/bwrap"
NO_BWRAP_WARNING = (
    "SANDBOX DEGRADED: bubblewrap is unavailable on this host, so level code ran without "
    "namespace isolation (no private network, PID space or read-only filesystem view); only "
    "rlimits, the seccomp filter, an empty environment and timeouts applied"
)


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


@functools.cache
def bubblewrap_available() -> bool:
    """Probe once whether bubblewrap can create the sandbox on this host."""
    if not Path(BWRAP).exists():
        log.warning("bubblewrap not found at %s", BWRAP)
        return False
    try:
        probe = subprocess.run(
            [*_bwrap_prefix(), sys.executable, "-I", "-c", "pass"],
            env={},
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("bubblewrap probe failed: %s", exc)
        return False
    if probe.returncode != 0:
        log.warning("bubblewrap probe failed: %s", probe.stderr.decode(errors="replace")[:500])
    return probe.returncode == 0


def _bwrap_prefix() -> list[str]:
    """bubblewrap arguments: namespaces, a read-only view of what Python needs, private /tmp."""
    args = [
        BWRAP, "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534",
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
    for directory in sorted(p for p in readable if not p.startswith("/usr/")):
        args += ["--ro-bind", directory, directory]
    args += ["--chdir", "/tmp"]  # the private tmpfs is the working directory
    return args


class _Worker:
    """One started worker process that has reported READY."""

    def __init__(self, domain: str, limits: SandboxLimits, isolated: bool) -> None:
        # Working directory outside bubblewrap; inside it, the private /tmp is used instead.
        self.tmpdir = tempfile.mkdtemp(prefix="dicode-sandbox-")
        command = [sys.executable, "-I", "-B", str(WORKER_SCRIPT), str(PROJECT_ROOT), domain]
        if isolated:
            command = [*_bwrap_prefix(), *command]
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
        line = _read_until(self.process, b"\n", time.monotonic() + limits.startup_seconds, 64)
        if line != b"READY\n":
            stderr = b""
            self._stop()
            if self.process.stderr is not None:
                with contextlib.suppress(OSError, ValueError):
                    stderr = self.process.stderr.read(4000)
            self.kill()
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
    """Warm pool of one-shot sandbox workers for one domain.

    Thread-safe; ``build`` may be called from several threads. Close it (or use it as a
    context manager) to kill the idle workers.
    """

    def __init__(
        self,
        domain: str = "tetris",
        warm: int = 2,
        limits: SandboxLimits | None = None,
        isolation: bool | None = None,
    ) -> None:
        """``isolation``: use bubblewrap (True), not (False), or where the host allows (None)."""
        if domain not in BUILDER_MODULES:
            raise ValueError(
                f"no level builder for domain {domain!r}; known: {sorted(BUILDER_MODULES)}"
            )
        self.domain = domain
        self.limits = limits or SandboxLimits()
        self.isolated = bubblewrap_available() if isolation is None else isolation
        if not self.isolated:
            log.warning(NO_BWRAP_WARNING)
        self._warm = max(1, warm)
        self._idle: list[_Worker] = []
        self._starting = 0
        self._lock = threading.Condition()
        self._closed = False
        self._start_error: str | None = None
        # Long-lived threads start every worker (up to two at once, since start-up is mostly
        # CPU): bubblewrap's --die-with-parent is tied to the thread that forked it, so that
        # thread must outlive the workers.
        self._refill_threads = [
            threading.Thread(target=self._refill_loop, daemon=True)
            for _ in range(min(2, self._warm))
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
                if self._closed:
                    return
                self._starting += 1
            try:
                worker = _Worker(self.domain, self.limits, self.isolated)
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

    def _take(self) -> _Worker:
        deadline = time.monotonic() + self.limits.startup_seconds
        with self._lock:
            while not self._idle:
                if self._closed:
                    raise RuntimeError("the sandbox pool is closed")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RuntimeError(f"no sandbox worker became ready: {self._start_error}")
                self._lock.wait(timeout=remaining)
            worker = self._idle.pop(0)
            self._lock.notify_all()
            return worker

    def idle_pids(self) -> list[int]:
        """Process ids of the warm workers (the roots of their process groups)."""
        with self._lock:
            return [worker.pid for worker in self._idle]

    def build(self, source: str, pool_size: int = 32, seed: int = 0) -> BuildResult:
        """Run a level's ``build`` ``pool_size`` times in a fresh worker.

        Never raises because of the level: every failure comes back as ``BuildResult.error``.
        """
        started = time.perf_counter()
        worker = self._take()
        handed_over = time.perf_counter()
        warnings = [] if self.isolated else [NO_BWRAP_WARNING]
        try:
            error, arrays, extra, printed = self._exchange(worker, source, pool_size, seed)
        finally:
            worker.kill()
        return BuildResult(
            ok=error is None,
            error=error,
            arrays=arrays,
            warnings=warnings + extra,
            printed=printed,
            wait_seconds=handed_over - started,
            run_seconds=time.perf_counter() - handed_over,
        )

    def _exchange(
        self, worker: _Worker, source: str, pool_size: int, seed: int
    ) -> tuple[str | None, dict[str, np.ndarray] | None, list[str], str]:
        limits = self.limits
        job = {
            "source": source,
            "pool_size": pool_size,
            "seed": seed,
            "limits": {k: v for k, v in asdict(limits).items() if isinstance(v, int)},
        }
        assert worker.process.stdin is not None
        try:
            worker.process.stdin.write(json.dumps(job).encode("utf-8"))
            worker.process.stdin.close()
        except OSError as exc:
            return f"the sandbox worker died before the build: {exc}", None, [], ""
        deadline = time.monotonic() + limits.wall_seconds
        answer = _read_until(worker.process, None, deadline, limits.answer_bytes)
        if answer is None:
            if time.monotonic() >= deadline:
                return (
                    f"timeout: the build did not finish within {limits.wall_seconds:g} s "
                    "(wall clock); the worker was killed",
                    None, [], "",
                )  # fmt: skip
            return (
                f"the build's answer exceeded {limits.answer_bytes} bytes; the worker was killed",
                None, [], "",
            )  # fmt: skip
        header_line, _, payload = answer.partition(b"\n")
        try:
            header = json.loads(header_line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return _death_message(worker), None, [], ""
        printed = str(header.get("printed", ""))
        extra = [str(w) for w in header.get("warnings", [])]
        if not header.get("ok"):
            return str(header.get("error")), None, extra, printed
        try:
            with np.load(io.BytesIO(payload), allow_pickle=False) as npz:
                arrays = {key: npz[key] for key in npz.files}
        except (OSError, ValueError, EOFError) as exc:
            return f"the build's answer was not a valid array bundle: {exc}", None, extra, printed
        return None, arrays, extra, printed

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
