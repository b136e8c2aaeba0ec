"""Trace the system calls a sandbox worker makes after its walls go up, on real builds.

Runs one worker per seed level of every world under ``strace -f`` (no bubblewrap: strace must
see the worker itself; the worker's own rlimits and seccomp filter still apply), keeps the calls
made after the worker installed its seccomp filter, and prints them beside the allow-list of
``dicode.levels.seccomp``: every traced call must be allowed (else a valid level would fail),
and the list says which allowed calls no build used. This is how the allow-list was written;
rerun it after upgrading Python or NumPy. Needs strace (``apt-get install strace``).

    PYTHONPATH=. python benchmarks/sandbox_syscalls.py [--domain tetris] [--json]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from dicode import domains
from dicode.levels import seccomp
from dicode.levels.sandbox import (
    PROJECT_ROOT,
    WORKER_SCRIPT,
    SandboxLimits,
    encode_job,
    worker_config,
)

# strace prints "PID name(args...) = result"; "<... name resumed>" lines continue a call.
_CALL = re.compile(r"^\d+\s+(?:<\.\.\. )?([a-z0-9_]+)(?:\(| resumed>)")
_LOCKED = "PR_SET_SECCOMP"


def trace_build(
    strace: str, domain: domains.Domain, source: str, pool_size: int
) -> collections.Counter[str]:
    """System calls (name → count) one worker made after installing its filter."""
    limits = domain.sandbox_limits or SandboxLimits()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "trace"
        command = [
            strace, "-f", "-qq", "-o", str(log), sys.executable, "-I", "-B", str(WORKER_SCRIPT),
            str(PROJECT_ROOT), domain.builder_module, json.dumps(worker_config(limits)),
        ]  # fmt: skip
        job = encode_job(source, pool_size, 0, limits, domain.base_worlds(0, pool_size))
        done = subprocess.run(command, input=job, capture_output=True, env={}, timeout=300)
        header = done.stdout.split(b"\n", 2)[1][:200]
        if b'"ok": true' not in header:
            raise RuntimeError(f"the build failed under strace: {header!r} {done.stderr[-500:]!r}")
        calls: collections.Counter[str] = collections.Counter()
        locked = False
        for line in log.read_text().splitlines():
            if not locked:
                locked = _LOCKED in line and line.rstrip().endswith("= 0")
                continue
            match = _CALL.match(line)
            if match:
                calls[match.group(1)] += 1
        if not locked:
            raise RuntimeError("the trace never showed the seccomp filter being installed")
        return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", action="append", help="a world (default: every world)")
    parser.add_argument("--pool-size", type=int, default=8)
    parser.add_argument("--json", action="store_true", help="print the result as JSON only")
    args = parser.parse_args()
    strace = shutil.which("strace")
    if strace is None:
        sys.exit("strace is not installed: apt-get install strace")
    allowed = set(seccomp.allowed_calls())
    traced: collections.Counter[str] = collections.Counter()
    per_level: dict[str, list[str]] = {}
    for name in args.domain or domains.names():
        domain = domains.get(name)
        for level, source in domain.seed_sources().items():
            calls = trace_build(strace, domain, source, args.pool_size)
            traced.update(calls)
            per_level[f"{name}/{level}"] = sorted(calls)
    missing = sorted(set(traced) - allowed)
    unused = sorted(allowed - set(traced))
    if args.json:
        summary = {
            "levels": len(per_level),
            "traced": dict(sorted(traced.items())),
            "not_allowed": missing,
            "allowed_unused": unused,
        }
        print(json.dumps(summary, indent=2))
    else:
        print(f"{len(per_level)} seed levels traced; calls after the filter went up:")
        for call, count in sorted(traced.items()):
            print(f"  {call:<20} {count:>8}  {'allowed' if call in allowed else 'NOT ALLOWED'}")
        print(f"allowed but unused: {', '.join(unused) or '-'}")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
