"""A seccomp filter the sandbox worker installs on itself just before running level code.

Why: rlimits alone cannot stop process creation for root (RLIMIT_NPROC is not enforced for
uid 0, which is what containers usually run as), and without bubblewrap nothing else blocks
the network or writes. The filter makes those system calls fail with EPERM for the worker and
everything it could start: new processes and threads, exec, sockets, signals to other
processes, writes to the filesystem, namespaces, mounts, tracing and io_uring.

Standard library only (ctypes, struct): it runs in the worker before NumPy-only level code.
Supported on x86_64 Linux; elsewhere ``install`` reports that it could not install the filter.
"""

from __future__ import annotations

import ctypes
import platform
import struct

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_SYSCALL_BIT = 0x40000000
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_EPERM = 0x00050000 | 1

_LD_W_ABS = 0x20
_JEQ = 0x15
_JGE = 0x35
_JSET = 0x45
_RET = 0x06

# x86_64 system call numbers refused outright.
_BLOCKED_X86_64 = {
    "socket": 41, "connect": 42, "accept": 43, "bind": 49, "listen": 50, "socketpair": 53,
    "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "kill": 62, "truncate": 76,
    "ftruncate": 77, "rename": 82, "mkdir": 83, "rmdir": 84, "creat": 85, "link": 86,
    "unlink": 87, "symlink": 88, "chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93,
    "lchown": 94, "ptrace": 101, "mknod": 133, "pivot_root": 155, "chroot": 161,
    "mount": 165, "umount2": 166, "tkill": 200, "tgkill": 234, "add_key": 248,
    "request_key": 249, "keyctl": 250, "mkdirat": 258, "mknodat": 259, "fchownat": 260,
    "unlinkat": 263, "renameat": 264, "linkat": 265, "symlinkat": 266, "fchmodat": 268,
    "unshare": 272, "perf_event_open": 298, "setns": 308, "process_vm_readv": 310,
    "process_vm_writev": 311, "renameat2": 316, "bpf": 321, "execveat": 322,
    "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "clone3": 435, "openat2": 437,
}  # fmt: skip
# open(path, flags) and openat(dirfd, path, flags): refuse any flag that writes or creates.
_OPEN, _OPEN_FLAGS_ARG = 2, 1
_OPENAT, _OPENAT_FLAGS_ARG = 257, 2
_WRITE_FLAGS = 0x1 | 0x2 | 0x40 | 0x200  # O_WRONLY | O_RDWR | O_CREAT | O_TRUNC


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _arg_offset(index: int) -> int:
    # struct seccomp_data: int nr; u32 arch; u64 ip; u64 args[6] (low 32 bits first on x86_64)
    return 16 + 8 * index


def filter_program() -> bytes:
    """The BPF program as raw ``struct sock_filter`` bytes."""
    blocked = sorted(_BLOCKED_X86_64.values())
    # Layout: 0 load arch, 1 arch check, 2 kill, 3 load nr, 4 x32 check, then one JEQ per
    # blocked call, the two open checks, ALLOW, the two flag checks, and the final EPERM.
    n_blocked = len(blocked)
    first_jeq = 5
    open_jeq = first_jeq + n_blocked
    allow = open_jeq + 2
    open_check = allow + 1  # 3 instructions: load flags, jset, allow
    openat_check = open_check + 3
    eperm = openat_check + 3
    prog = [
        _insn(_LD_W_ABS, 4),
        _insn(_JEQ, _AUDIT_ARCH_X86_64, jt=1, jf=0),
        _insn(_RET, _RET_KILL_PROCESS),
        _insn(_LD_W_ABS, 0),
        _insn(_JGE, _X32_SYSCALL_BIT, jt=eperm - 5, jf=0),
    ]
    for i, nr in enumerate(blocked):
        pc = first_jeq + i
        prog.append(_insn(_JEQ, nr, jt=eperm - pc - 1, jf=0))
    prog.append(_insn(_JEQ, _OPEN, jt=open_check - open_jeq - 1, jf=0))
    prog.append(_insn(_JEQ, _OPENAT, jt=openat_check - open_jeq - 2, jf=0))
    prog.append(_insn(_RET, _RET_ALLOW))
    for check_pc, arg in ((open_check, _OPEN_FLAGS_ARG), (openat_check, _OPENAT_FLAGS_ARG)):
        assert len(prog) == check_pc
        prog.append(_insn(_LD_W_ABS, _arg_offset(arg)))
        prog.append(_insn(_JSET, _WRITE_FLAGS, jt=eperm - check_pc - 2, jf=0))
        prog.append(_insn(_RET, _RET_ALLOW))
    assert len(prog) == eperm
    prog.append(_insn(_RET, _RET_EPERM))
    return b"".join(prog)


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def install() -> str | None:
    """Install the filter on the calling thread's process; returns None or why it could not."""
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        return f"seccomp filter not available on {platform.system()} {platform.machine()}"
    program = filter_program()
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return f"prctl(NO_NEW_PRIVS) failed: errno {ctypes.get_errno()}"
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        return f"prctl(SECCOMP) failed: errno {ctypes.get_errno()}"
    return None
