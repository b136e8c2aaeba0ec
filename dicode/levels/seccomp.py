"""The seccomp filter the sandbox worker installs on itself before it takes a level.

Why: the worker has imported everything it needs by then, so from that point it has no reason
to open a file, start a process or touch the network. The filter makes every such system call
fail with EPERM, for the worker and anything it could start: ``open``/``openat``/``openat2``
(reads too: level code that reaches ``os`` finds nothing to read, not even ``/proc``), new
processes and threads, exec, sockets, signals to other processes, filesystem changes,
namespaces, mounts, tracing, file handles, pidfds, rlimit changes, bpf and io_uring. rlimits
alone could not do this: RLIMIT_NPROC is not enforced for root, which containers usually are.

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
_JGE = 0x35
_RET = 0x06

# Calls refused on every architecture, by their numbers in the asm-generic table (aarch64) and
# the x86_64 table. Read from the kernel headers (asm-generic/unistd.h, asm/unistd_64.h).
_REFUSED: dict[str, tuple[int, int]] = {  # name: (x86_64, generic)
    "openat": (257, 56), "openat2": (437, 437), "open_by_handle_at": (304, 265),
    "name_to_handle_at": (303, 264), "open_tree": (428, 428),
    "socket": (41, 198), "socketpair": (53, 199), "bind": (49, 200), "listen": (50, 201),
    "accept": (43, 202), "connect": (42, 203), "accept4": (288, 242),
    "clone": (56, 220), "clone3": (435, 435), "execve": (59, 221), "execveat": (322, 281),
    "kill": (62, 129), "tkill": (200, 130), "tgkill": (234, 131),
    "pidfd_open": (434, 434), "pidfd_getfd": (438, 438),
    "truncate": (76, 45), "ftruncate": (77, 46), "renameat": (264, 38),
    "renameat2": (316, 276), "mkdirat": (258, 34), "mknodat": (259, 33),
    "unlinkat": (263, 35), "symlinkat": (266, 36), "linkat": (265, 37), "fchmod": (91, 52),
    "fchmodat": (268, 53), "fchown": (93, 55), "fchownat": (260, 54),
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "pivot_root": (155, 41), "chroot": (161, 51), "mount": (165, 40), "umount2": (166, 39),
    "move_mount": (429, 429), "fsopen": (430, 430), "fsconfig": (431, 431),
    "fsmount": (432, 432), "fspick": (433, 433), "mount_setattr": (442, 442),
    "unshare": (272, 97), "setns": (308, 268),
    "add_key": (248, 217), "request_key": (249, 218), "keyctl": (250, 219),
    "setrlimit": (160, 164), "prlimit64": (302, 261), "acct": (163, 89),
    "perf_event_open": (298, 241), "fanotify_init": (300, 262), "bpf": (321, 280),
    "userfaultfd": (323, 282), "io_uring_setup": (425, 425), "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
}  # fmt: skip
# x86_64 keeps older calls that the generic table dropped.
_REFUSED_X86_64_ONLY = {
    "open": 2, "creat": 85, "fork": 57, "vfork": 58, "rename": 82, "mkdir": 83, "rmdir": 84,
    "link": 86, "unlink": 87, "symlink": 88, "chmod": 90, "chown": 92, "lchown": 94,
    "mknod": 133, "uselib": 134,
}  # fmt: skip


class _Arch:
    def __init__(self, audit: int, numbers: dict[str, int], x32_bit: int | None) -> None:
        self.audit = audit  # AUDIT_ARCH_* value seccomp_data.arch carries
        self.numbers = numbers
        self.x32_bit = x32_bit  # x86_64's x32 ABI: a second numbering, refused wholesale


_ARCHES = {
    "x86_64": _Arch(
        0xC000003E,
        {**{n: nrs[0] for n, nrs in _REFUSED.items()}, **_REFUSED_X86_64_ONLY},
        0x40000000,
    ),
    "aarch64": _Arch(0xC00000B7, {n: nrs[1] for n, nrs in _REFUSED.items()}, None),
}


def refused_calls(machine: str | None = None) -> dict[str, int]:
    """System call name → number refused on ``machine`` (default: this one)."""
    arch = _ARCHES.get(machine or platform.machine())
    return {} if arch is None else dict(arch.numbers)


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def filter_program(machine: str | None = None) -> bytes:
    """The BPF program (raw ``struct sock_filter`` bytes): wrong arch → kill; refused → EPERM."""
    arch = _ARCHES[machine or platform.machine()]
    refused = sorted(set(arch.numbers.values()))
    prog = [
        _insn(_LD_W_ABS, 4),  # seccomp_data.arch
        _insn(_JEQ, arch.audit, jt=1, jf=0),
        _insn(_RET, _RET_KILL_PROCESS),
        _insn(_LD_W_ABS, 0),  # seccomp_data.nr
    ]
    # After the header: [x32 check], one JEQ per refused call, ALLOW, EPERM.
    checks = len(refused) + (1 if arch.x32_bit is not None else 0)
    eperm = len(prog) + checks + 1
    if arch.x32_bit is not None:
        prog.append(_insn(_JGE, arch.x32_bit, jt=eperm - len(prog) - 1, jf=0))
    for nr in refused:
        prog.append(_insn(_JEQ, nr, jt=eperm - len(prog) - 1, jf=0))
    prog.append(_insn(_RET, _RET_ALLOW))
    assert len(prog) == eperm
    prog.append(_insn(_RET, _RET_EPERM))
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
