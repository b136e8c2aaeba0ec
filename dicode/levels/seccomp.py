"""The seccomp filter the sandbox worker installs on itself before it takes a level.

Why: the worker has imported everything it needs by then; from that point a build only reads
its job from stdin, computes in memory and writes its answer. The filter is an **allow-list**:
the calls below are allowed, every other call fails with EPERM — opening anything (reads too),
processes, threads, exec, sockets, signals, file changes, namespaces, mounts, tracing, clocks,
modules, reboot, and every call a future kernel adds. rlimits alone could not do this:
RLIMIT_NPROC is not enforced for root, which containers usually are.

The list was written from a trace of real builds of every world's seed levels
(``benchmarks/sandbox_syscalls.py`` traces them and checks each traced call is here), plus
the memory calls an allocator may need for other sizes (``madvise``) and what the kernel
needs to deliver a signal and end the process. Unseeded randomness (``getrandom``) is refused on
purpose: a level's pool comes from the ``rng`` it is given.

Standard library only (ctypes, struct). Supported on x86_64 and aarch64 Linux; elsewhere
``install`` says why it could not, and the worker then refuses to run level code.
"""

from __future__ import annotations

import ctypes
import platform
import struct

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_EPERM = 0x00050000 | 1

_LD_W_ABS = 0x20
_JEQ = 0x15
_RET = 0x06

# The calls a build may make, by their numbers in the x86_64 table and the asm-generic table
# (aarch64), read from the kernel headers (asm/unistd_64.h, asm-generic/unistd.h); None where
# an architecture has no such call.
_ALLOWED: dict[str, tuple[int | None, int | None]] = {  # name: (x86_64, generic)
    # the job in, the answer out (stdin is closed and stdout/stderr moved after reading)
    "read": (0, 63), "write": (1, 64), "close": (3, 57), "lseek": (8, 62),
    "fstat": (5, 80), "newfstatat": (262, 79), "dup2": (33, None), "dup3": (292, 24),
    # memory
    "brk": (12, 214), "mmap": (9, 222), "munmap": (11, 215), "mremap": (25, 216),
    "madvise": (28, 233),
    # the interpreter and libc themselves
    "futex": (202, 98), "clock_gettime": (228, 113), "gettimeofday": (96, 169),
    "rt_sigreturn": (15, 139), "exit": (60, 93), "exit_group": (231, 94),
    "getpid": (39, 172),  # harmless: the PID namespace's own number
}  # fmt: skip


class _Arch:
    def __init__(self, audit: int, numbers: dict[str, int]) -> None:
        self.audit = audit  # AUDIT_ARCH_* value seccomp_data.arch carries
        self.numbers = numbers  # allowed calls; x86_64's x32 numbers (bit 30) match none


_ARCHES = {
    "x86_64": _Arch(0xC000003E, {n: nrs[0] for n, nrs in _ALLOWED.items() if nrs[0] is not None}),
    "aarch64": _Arch(0xC00000B7, {n: nrs[1] for n, nrs in _ALLOWED.items() if nrs[1] is not None}),
}


def allowed_calls(machine: str | None = None) -> dict[str, int]:
    """System call name → number allowed on ``machine`` (default: this one); empty when the
    architecture is not supported."""
    arch = _ARCHES.get(machine or platform.machine())
    return {} if arch is None else dict(arch.numbers)


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def filter_program(machine: str | None = None) -> bytes:
    """The BPF program (raw ``struct sock_filter`` bytes): wrong arch → kill; allowed → allow;
    anything else → EPERM."""
    arch = _ARCHES[machine or platform.machine()]
    allowed = sorted(set(arch.numbers.values()))
    prog = [
        _insn(_LD_W_ABS, 4),  # seccomp_data.arch
        _insn(_JEQ, arch.audit, jt=1, jf=0),
        _insn(_RET, _RET_KILL_PROCESS),
        _insn(_LD_W_ABS, 0),  # seccomp_data.nr
    ]
    # After the header: one JEQ per allowed call (jumping to ALLOW), then EPERM, then ALLOW.
    allow = len(prog) + len(allowed) + 1
    for nr in allowed:
        prog.append(_insn(_JEQ, nr, jt=allow - len(prog) - 1, jf=0))
    prog.append(_insn(_RET, _RET_EPERM))
    assert len(prog) == allow
    prog.append(_insn(_RET, _RET_ALLOW))
    return b"".join(prog)


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def install() -> str | None:
    """Install the filter on this process; returns None, or why it could not be installed."""
    if platform.system() != "Linux" or platform.machine() not in _ARCHES:
        return (
            f"the seccomp filter supports Linux on {' and '.join(sorted(_ARCHES))}, "
            f"not {platform.system()} {platform.machine()}"
        )
    program = filter_program()
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return f"prctl(PR_SET_NO_NEW_PRIVS) failed: errno {ctypes.get_errno()}"
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        return f"prctl(PR_SET_SECCOMP) failed: errno {ctypes.get_errno()}"
    return None
