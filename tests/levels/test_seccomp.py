"""The worker's seccomp filter is an allow-list: what a build needs works, everything else
fails with EPERM (``dicode.levels.seccomp``), tested on the filter alone, without bubblewrap."""

from __future__ import annotations

import json
import platform
import subprocess
import sys

import pytest

from dicode.levels import seccomp

# Calls the old deny-list let through, and a few it refused; all must fail now. Arguments are
# harmless or invalid, so a call let through by mistake still changes nothing.
REFUSED = {  # name: ((x86_64, generic), arguments)
    "rt_sigqueueinfo": ((129, 138), (1, 0, 0)),
    "rt_tgsigqueueinfo": ((297, 240), (1, 1, 0, 0)),
    "fchmodat2": ((452, 452), (-100, 0, 0o777, 0)),
    "utimensat": ((280, 88), (-100, 0, 0, 0)),
    "setxattr": ((188, 5), (0, 0, 0, 0, 0)),
    "open_tree_attr": ((467, 467), (-100, 0, 0, 0, 0)),
    "syslog": ((103, 116), (10, 0, 0)),
    "clock_settime": ((227, 112), (0, 0)),
    "reboot": ((169, 142), (0, 0, 0, 0)),
    "openat": ((257, 56), (-100, 0, 0, 0)),
    "getppid": ((110, 173), ()),
    "uname": ((63, 160), (0,)),
}

_PROBE = """
import ctypes, json, os, platform, sys
from dicode.levels import seccomp
calls = json.loads(sys.argv[1])
which = 0 if platform.machine() == "x86_64" else 1
libc = ctypes.CDLL(None, use_errno=True)
problem = seccomp.install()
results = {}
for name, (numbers, args) in calls.items():
    ctypes.set_errno(0)
    answer = libc.syscall(numbers[which], *args)
    results[name] = [answer, ctypes.get_errno()]
buffer = bytearray(2**24)  # memory still works
os.write(1, json.dumps({"problem": problem, "results": results}).encode())
"""


@pytest.mark.skipif(
    platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64"),
    reason="the filter supports Linux on x86_64 and aarch64",
)
def test_calls_outside_the_allow_list_fail_with_eperm_and_the_rest_works() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(REFUSED)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["problem"] is None
    let_through = {k: v for k, v in answer["results"].items() if v != [-1, 1]}
    assert let_through == {}


def test_the_allow_list_is_small_and_names_no_dangerous_call() -> None:
    for machine in ("x86_64", "aarch64"):
        allowed = seccomp.allowed_calls(machine)
        assert 10 <= len(allowed) <= 30
        assert not {"openat", "clone", "execve", "socket", "kill", "mprotect"} & set(allowed)
        index = 0 if machine == "x86_64" else 1
        assert not {numbers[index] for numbers, _ in REFUSED.values()} & set(allowed.values())


def test_the_program_checks_the_architecture_first() -> None:
    for machine in ("x86_64", "aarch64"):
        program = seccomp.filter_program(machine)
        assert len(program) % 8 == 0
        # 4 header instructions, one jump per allowed call, EPERM, ALLOW
        assert len(program) // 8 == 4 + len(set(seccomp.allowed_calls(machine).values())) + 2
