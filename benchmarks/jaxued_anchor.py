"""JaxUED's own maze loop as an external throughput anchor (issue 40).

Runs the JaxUED repository's ``examples/maze_plr.py`` (not part of this project and not shipped
with it: give its path) in a child process of another interpreter — a virtual environment with
``pip install jaxued==0.0.1`` — and measures env steps per second between its evaluation logs.

What the child gets:

* a temporary directory first on ``PYTHONPATH`` with a ``wandb.py`` stand-in written here: it
  records ``wandb.init``'s config and each ``wandb.log`` call's scalars with a wall-clock time as
  JSON lines in a file (``JAXUED_ANCHOR_EVENTS``); images, videos and everything else are no-ops,
  so nothing goes to the network;
* a small runner that sets ``jax.tree_map = jax.tree_util.tree_map`` (removed from jax 0.10,
  still used by jaxued 0.0.1) and records the interpreter's package versions before running the
  example as ``__main__``;
* with ``threads == 1``, ``XLA_FLAGS`` for one intra-op thread, as this project's benchmarks run
  (``benchmarks.experiment.THREADS``): the figures are per core;
* its working directory in the temporary directory.

Method flags on ``maze_plr.py`` (its own parser): robust PLR is its default
(``--exploratory_grad_updates`` off: no gradient step on new levels, replay probability 0.8);
DR is ``--replay_prob 0 --exploratory_grad_updates`` (every batch is new 25-wall levels with a
gradient step; the level buffer is still scored and filled, as that script always does).
``examples/maze_dr.py`` may be given for ``dr`` instead; it then takes no method flags.

Changed for a bounded run (the algorithm's settings stay at the script's defaults):
``--eval_freq`` (updates per evaluation log; default 250, i.e. 2M env steps, ~10 min per log
on one core) and ``--checkpoint_save_interval 0`` (no orbax checkpoints). ``--num_updates``
keeps its default (the learning-rate schedule anneals over it); the child is stopped after
``seconds``. The example's own logged ``sps`` divides by the time to dispatch a chunk, not to
finish it, so the rate here is taken between the wall-clock times of the logs: each interval
is one chunk of ``eval_freq`` updates plus one evaluation (10 attempts on 8 named mazes) and
its host-side logging. The window opens at the second log: with jax 0.10 the example's jitted
step compiles a second time on its second call (the level batch it returns has other weak
types than the one it was first given), inside the first interval. Robust PLR's window opens
at the first log where the level buffer has reached its minimum fill, if later (before that,
every batch is new levels without a gradient step). ``JAX_LOG_COMPILES=1`` in the child times
the compilations.

Run alone: ``python benchmarks/jaxued_anchor.py --python VENV/bin/python --example
PATH/maze_plr.py --method dr --seconds 600`` prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

METHODS = ("dr", "robust_plr")
THREAD_FLAGS = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
EVENTS_ENV = "JAXUED_ANCHOR_EVENTS"
DEFAULT_EVAL_FREQ = 25  # 25 × 32 × 256 = 205k env steps per log, about a minute on one core
# maze_plr.py's defaults, used only when the child's config was not recorded
FALLBACK_BATCH = {"num_train_envs": 32, "num_steps": 256}
CONFIG_KEYS = (
    "lr", "max_grad_norm", "num_updates", "num_steps", "num_train_envs", "num_minibatches",
    "gamma", "epoch_ppo", "clip_eps", "gae_lambda", "entropy_coeff", "critic_coeff",
    "score_function", "exploratory_grad_updates", "level_buffer_capacity", "replay_prob",
    "staleness_coeff", "temperature", "minimum_fill_ratio", "prioritization",
    "buffer_duplicate_check", "use_accel", "agent_view_size", "n_walls", "eval_freq",
    "eval_num_attempts", "eval_levels", "checkpoint_save_interval", "seed",
)  # fmt: skip
VERSION_PACKAGES = ("jaxued", "jax", "jaxlib", "flax", "optax", "chex", "distrax", "numpy")

# The wandb stand-in the child imports instead of wandb.
WANDB_STANDIN = '''"""wandb stand-in for benchmarks/jaxued_anchor.py: JSON lines, no network."""
import json
import os
import time

_PATH = os.environ.get("JAXUED_ANCHOR_EVENTS")


def _emit(record):
    record["t"] = time.time()
    line = json.dumps(record, default=str)
    if _PATH:
        with open(_PATH, "a", encoding="utf-8") as handle:
            handle.write(line + "\\n")
    else:
        print("WANDB_EVENT " + line, flush=True)


def _scalar(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float, str)):
        return value
    if getattr(value, "shape", None) == () or getattr(value, "size", None) == 1:
        try:
            return float(value)
        except (TypeError, ValueError):
            return None
    return None


def _plain(value):
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    scalar = _scalar(value)
    return scalar if scalar is not None else str(value)


class Config(dict):
    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value

    def update(self, *args, allow_val_change=None, **kwargs):
        dict.update(self, *args, **kwargs)

    def as_dict(self):
        return dict(self)


class _NoOp:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return self

    def __getattr__(self, name):
        return self


class Image(_NoOp):
    pass


class Video(_NoOp):
    pass


class Histogram(_NoOp):
    pass


class Table(_NoOp):
    pass


config = Config()
run = None
_step = 0


class Run:
    def __init__(self, **kwargs):
        self.id = "standin"
        self.name = kwargs.get("name") or "standin"
        self.project = kwargs.get("project")
        self.config = config

    def log(self, data, step=None, commit=None):
        log(data, step=step, commit=commit)

    def finish(self, *args, **kwargs):
        finish()

    def __getattr__(self, name):
        return _NoOp()


def init(*args, config=None, **kwargs):
    global run
    if config is not None:
        globals()["config"].update(dict(config))
    _emit({"event": "init", "config": _plain(dict(globals()["config"])),
           "project": kwargs.get("project")})
    run = Run(**kwargs)
    return run


def log(data, step=None, commit=None):
    global _step
    scalars = {}
    for key, value in dict(data).items():
        scalar = _scalar(value)
        if scalar is not None:
            scalars[str(key)] = scalar
    _emit({"event": "log", "step": _step if step is None else step, "data": scalars})
    _step += 1


def define_metric(*args, **kwargs):
    return None


def login(*args, **kwargs):
    return True


def finish(*args, **kwargs):
    _emit({"event": "finish"})


def __getattr__(name):
    return _NoOp()
'''

# The runner: patches jax.tree_map, records versions, runs the example as __main__.
RUNNER = '''"""Runner for benchmarks/jaxued_anchor.py: jax.tree_map, then the example."""
import importlib.metadata
import importlib.util
import json
import os
import platform
import runpy
import sys
import time


def _emit(record):
    record["t"] = time.time()
    path = os.environ.get("JAXUED_ANCHOR_EVENTS")
    line = json.dumps(record)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\\n")
    else:
        print("WANDB_EVENT " + line, flush=True)


versions = {"python": platform.python_version()}
for package in sys.argv[2].split(","):
    try:
        versions[package] = importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        versions[package] = None
cpus = os.environ.get("JAXUED_ANCHOR_CPUS")
if cpus:  # before jax starts its thread pools, which are sized from the affinity
    os.sched_setaffinity(0, {int(cpu) for cpu in cpus.split(",")})
patched = False
if importlib.util.find_spec("jax") is not None:
    import jax

    if "tree_map" not in vars(jax):
        jax.tree_map = jax.tree_util.tree_map
        patched = True
_emit({"event": "runner", "versions": versions, "tree_map_patched": patched,
       "xla_flags": os.environ.get("XLA_FLAGS"),
       "affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None})
example = sys.argv[1]
sys.argv = [example, *sys.argv[3:]]
sys.path.insert(0, os.path.dirname(os.path.abspath(example)))
runpy.run_path(example, run_name="__main__")
_emit({"event": "exit"})
'''


def method_flags(method: str, example: Path) -> dict[str, str | None]:
    """The example's flags that select ``method`` (value ``None``: a bare switch)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    if example.name == "maze_dr.py":
        if method != "dr":
            raise ValueError("examples/maze_dr.py runs DR only; give maze_plr.py for robust PLR")
        return {}
    if method == "dr":
        return {"--replay_prob": "0", "--exploratory_grad_updates": None}
    return {}  # robust PLR: maze_plr.py's defaults


def changed_flags(method: str, example: Path, eval_freq: int) -> dict[str, dict[str, Any]]:
    """Every flag given to the example, with its value and why it differs from the default."""
    flags: dict[str, dict[str, Any]] = {
        "--eval_freq": {
            "value": str(eval_freq),
            "default": "250",
            "why": "updates per evaluation log; the rate is taken between logs, and the default "
            "(2M env steps) is ~10 min per log on one core",
        },
        "--checkpoint_save_interval": {
            "value": "0",
            "default": "2",
            "why": "no orbax checkpoints written during a throughput run",
        },
    }
    for flag, value in method_flags(method, example).items():
        flags[flag] = {
            "value": value,
            "default": {"--replay_prob": "0.8", "--exploratory_grad_updates": "off"}.get(flag),
            "why": f"selects {method} in {example.name}",
        }
    return flags


def command_args(flags: dict[str, dict[str, Any]]) -> list[str]:
    args: list[str] = []
    for flag, spec in flags.items():
        args.append(flag)
        if spec["value"] is not None:
            args.append(str(spec["value"]))
    return args


def read_events(path: Path) -> list[dict[str, Any]]:
    """The JSON lines written so far (a partly written last line is left for later)."""
    if not path.exists():
        return []
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events


def summarize(
    events: list[dict[str, Any]],
    started: float,
    method: str,
    cpu_samples: list[tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """Throughput figures from the child's events; ``started`` is when it was launched;
    ``cpu_samples`` are (wall time, the child's CPU seconds so far), in time order.

    Env steps of a log are its ``num_updates`` × ``num_train_envs`` × ``num_steps`` (from the
    recorded config). The rate runs from the first log of the steady window to the last: the
    second log (the first interval holds a recompilation), or for robust PLR the first log
    where the buffer reached its minimum fill if that is later.
    """
    out: dict[str, Any] = {}
    config: dict[str, Any] = {}
    for event in events:
        if event.get("event") == "init":
            config = event.get("config") or {}
        elif event.get("event") == "runner":
            out["versions"] = event.get("versions", {})
            out["tree_map_patched"] = event.get("tree_map_patched")
            out["child_xla_flags"] = event.get("xla_flags")
            out["child_affinity"] = event.get("affinity")
            out["import_start_s"] = round(event["t"] - started, 2)
    out["config"] = {key: config[key] for key in CONFIG_KEYS if key in config}
    envs = int(config.get("num_train_envs", FALLBACK_BATCH["num_train_envs"]))
    steps = int(config.get("num_steps", FALLBACK_BATCH["num_steps"]))
    per_update = envs * steps
    out["steps_per_update"] = per_update
    logs = [e for e in events if e.get("event") == "log" and "num_updates" in e.get("data", {})]
    out["logs"] = len(logs)
    if not logs:
        out["steps_per_s"] = None
        return out
    times = [float(e["t"]) for e in logs]
    updates = [int(e["data"]["num_updates"]) for e in logs]
    out["setup_s"] = round(times[0] - started, 1)
    out["log_updates"] = updates
    out["log_times_s"] = [round(t - started, 1) for t in times]
    out["interval_steps_per_s"] = [
        round((u1 - u0) * per_update / (t1 - t0), 1)
        for u0, u1, t0, t1 in zip(updates, updates[1:], times, times[1:], strict=False)
        if t1 > t0
    ]
    # the example compiles its step twice (the second call's level batch has other weak types),
    # so the first interval holds a compilation: the window opens at the second log
    first = 1
    if method == "robust_plr" and not config.get("exploratory_grad_updates", False):
        fill = float(config.get("minimum_fill_ratio", 0.5)) * int(
            config.get("level_buffer_capacity", 4000)
        )
        sizes = [e["data"].get("level_sampler/size") for e in logs]
        filled = (i for i, s in enumerate(sizes) if s is not None and s >= fill)
        first = max(first, next(filled, len(logs)))
    out["steady_from_log"] = first
    if len(logs) - first < 2 or times[-1] <= times[first]:
        out["steps_per_s"] = None
        out["error"] = (
            f"{len(logs)} logs ({len(logs) - first} in the steady window): too few for a rate; "
            "give more seconds or a smaller eval_freq"
        )
        return out
    window_steps = (updates[-1] - updates[first]) * per_update
    window_s = times[-1] - times[first]
    out["steps_per_s"] = round(window_steps / window_s, 1)
    out["window_steps"] = window_steps
    out["window_s"] = round(window_s, 1)
    chunk_s = window_s / (len(logs) - 1 - first)
    out["chunk_s"] = round(chunk_s, 1)
    window_cpu = cpu_between(cpu_samples or [], times[first], times[-1])
    if window_cpu:
        out["window_cpu_s"] = round(window_cpu, 1)
        out["window_cores_busy"] = round(window_cpu / window_s, 2)
        out["steps_per_cpu_s"] = round(window_steps / window_cpu, 1)
    return out


COMPILE_LINE = re.compile(
    r"Finished (?:XLA compilation of|jaxpr to MLIR module conversion) jit\((?P<name>[^)]*)\)"
    r" in (?P<seconds>[0-9.eE+-]+) sec"
)


def compile_times(output: str) -> dict[str, Any]:
    """Lowering + XLA compile seconds from the child's ``JAX_LOG_COMPILES`` lines: in all, and
    per compilation of the example's jitted step (``train_and_eval_step``)."""
    total, step = 0.0, []
    for match in COMPILE_LINE.finditer(output):
        seconds = float(match["seconds"])
        total += seconds
        if match["name"] == "train_and_eval_step" and "XLA compilation" in match[0]:
            step.append(round(seconds, 1))
    return {"compile_s": round(total, 1), "step_compile_s": step}


def cpu_between(samples: list[tuple[float, float]], t0: float, t1: float) -> float | None:
    """CPU seconds the child spent between wall times ``t0`` and ``t1``, from the first samples
    taken at or after each (polled every half second, so the edges are that coarse)."""

    def at(t: float) -> float | None:
        return next((cpu for when, cpu in samples if when >= t), None)

    start, end = at(t0), at(t1)
    return end - start if start is not None and end is not None and end > start else None


def child_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` (all its threads) so far, from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the child we started (its own session: its group), politely then firmly."""
    if process.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 15.0), (signal.SIGKILL, 15.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _tail(path: Path, chars: int = 2000) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-chars:]
    except OSError:
        return ""


def measure_jaxued(
    python: Path,
    example: Path,
    method: str,
    seconds: float,
    threads: int = 1,
    eval_freq: int = DEFAULT_EVAL_FREQ,
    max_logs: int | None = None,
    cpus: str | None = None,
) -> dict[str, Any]:
    """Run JaxUED's example for ``method`` for at most ``seconds`` and return its throughput.

    A flat JSON-able dict: ``steps_per_s`` (env steps per second over the steady window, per
    ``threads`` intra-op threads; ``None`` on failure), ``setup_s`` (launch → first log:
    imports, compilation and the first chunk), ``compile_s``, ``logs``, ``flags`` (every
    flag given, with default and reason), ``versions`` (the child's packages), ``method``,
    ``threads``, and ``error`` where it failed — never raises for a failed child.

    Compilation is timed from the child's ``JAX_LOG_COMPILES`` lines (``compile_s``; the
    example's step compiles twice, ``step_compile_s``). The rate's window opens at the second
    log (the first interval holds the second compilation), for robust PLR at the first log
    where the level buffer reached its minimum fill.

    ``threads == 1`` sets this project's one-thread ``XLA_FLAGS``; with jax 0.10 on CPU they do
    not keep XLA to one core (``window_cores_busy`` shows what the child used), so
    ``steps_per_cpu_s`` (env steps per CPU second in the window) is the per-core figure that
    holds either way. ``cpus`` ("0" or "0,1") pins the child to those CPUs before jax starts.
    """
    python, example = Path(python), Path(example)
    result: dict[str, Any] = {
        "method": method,
        "threads": threads,
        "seconds_limit": seconds,
        "python": str(python),
        "example": str(example),
        "versions": {},
        "flags": {},
        "logs": 0,
        "steps_per_s": None,
        "setup_s": None,
        "cpus": cpus,
    }
    try:
        if not python.exists():
            raise FileNotFoundError(f"no interpreter at {python}")
        if not example.is_file():
            raise FileNotFoundError(f"no example at {example}")
        flags = changed_flags(method, example, eval_freq)
        result["flags"] = flags
        with tempfile.TemporaryDirectory(prefix="jaxued_anchor_") as tmp:
            result.update(_run_child(python, example.resolve(), flags, seconds, threads,
                                     max_logs, Path(tmp), method, cpus))  # fmt: skip
    except Exception as exc:  # a failed anchor is a value, not a crash of the caller
        result["error"] = f"{type(exc).__name__}: {exc}"
    return result


def _run_child(
    python: Path,
    example: Path,
    flags: dict[str, dict[str, Any]],
    seconds: float,
    threads: int,
    max_logs: int | None,
    tmp: Path,
    method: str,
    cpus: str | None,
) -> dict[str, Any]:
    (tmp / "wandb.py").write_text(WANDB_STANDIN, encoding="utf-8")
    (tmp / "jaxued_anchor_runner.py").write_text(RUNNER, encoding="utf-8")
    events_path, output_path = tmp / "events.jsonl", tmp / "child_output.txt"
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    if threads == 1:
        env["XLA_FLAGS"] = THREAD_FLAGS
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp), os.environ.get("PYTHONPATH")]))
    env.update({EVENTS_ENV: str(events_path), "PYTHONUNBUFFERED": "1", "WANDB_MODE": "disabled",
                "JAX_PLATFORMS": "cpu", "JAX_LOG_COMPILES": "1"})  # fmt: skip
    env.pop("JAXUED_ANCHOR_CPUS", None)
    if cpus:
        env["JAXUED_ANCHOR_CPUS"] = cpus
    command = [str(python), str(tmp / "jaxued_anchor_runner.py"), str(example),
               ",".join(VERSION_PACKAGES), *command_args(flags)]  # fmt: skip
    out: dict[str, Any] = {
        "command": ["python", "RUNNER", str(example), *command_args(flags)],
        "xla_flags": env.get("XLA_FLAGS"),
        "load_1m_start": round(os.getloadavg()[0], 2),
    }
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.time()
    deadline = time.monotonic() + seconds
    with output_path.open("wb") as output:
        process = subprocess.Popen(
            command, cwd=tmp, env=env, stdout=output, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        stopped_by = "exit"
        samples: list[tuple[float, float]] = []
        try:
            while process.poll() is None:
                used = child_cpu_s(process.pid)
                if used is not None:
                    samples.append((time.time(), used))
                if time.monotonic() >= deadline:
                    stopped_by = "time limit"
                    break
                if max_logs is not None:
                    logs = [e for e in read_events(events_path) if e.get("event") == "log"]
                    if len(logs) >= max_logs:
                        stopped_by = "max_logs"
                        break
                time.sleep(0.5)
        finally:
            _stop(process)
    wall = time.time() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    out.update(
        stopped_by=stopped_by,
        returncode=process.returncode,
        child_wall_s=round(wall, 1),
        child_cpu_s=round(cpu, 1),
        child_cores_busy=round(cpu / wall, 2) if wall > 0 else None,
        load_1m_end=round(os.getloadavg()[0], 2),
    )
    out.update(summarize(read_events(events_path), started, method, samples))
    out.update(compile_times(output_path.read_text(encoding="utf-8", errors="replace")))
    if stopped_by == "exit" and process.returncode != 0 and not out.get("steps_per_s"):
        out["error"] = f"child exited {process.returncode}: {_tail(output_path)}"
    elif out.get("steps_per_s") is None and "error" not in out:
        out["error"] = f"no rate ({out['logs']} logs; {stopped_by}): {_tail(output_path, 800)}"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", type=Path, required=True, help="interpreter with jaxued")
    parser.add_argument("--example", type=Path, required=True, help="JaxUED's maze_plr.py")
    parser.add_argument("--method", choices=METHODS, default="dr")
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--threads", type=int, default=1, help="1: one XLA intra-op thread")
    parser.add_argument("--eval-freq", type=int, default=DEFAULT_EVAL_FREQ)
    parser.add_argument("--max-logs", type=int, default=None, help="stop after this many logs")
    parser.add_argument("--cpus", help='pin the child to these CPUs, e.g. "0"')
    args = parser.parse_args()
    result = measure_jaxued(args.python, args.example, args.method, args.seconds, args.threads,
                            args.eval_freq, args.max_logs, args.cpus)  # fmt: skip
    print(json.dumps(result, indent=1))
    if result.get("error"):
        sys.exit(1)


if __name__ == "__main__":
    main()
