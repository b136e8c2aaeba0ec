"""`python -m services.student --db URL --run NAME`: the student on a Ray cluster.

How the compose ``ray-head`` service runs it: starts (or joins, with ``--address``) Ray, then
runs the student and evaluator actors until SIGTERM; always resumes from the newest checkpoint.
The dashboard listens on 0.0.0.0:8265 when this process starts the head.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import threading
from pathlib import Path

import ray

from archive_db import ArchiveRepository
from services.heartbeat import touch
from services.runs import add_run_arguments, open_service_run
from services.student.actors import EvaluatorActor, StudentActor

HEARTBEAT = "/tmp/dicode-student.heartbeat"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m services.student", description=__doc__)
    add_run_arguments(parser)
    parser.add_argument(
        "--run-dir",
        default=os.environ.get("DICODE_RUN_DIR", "runs"),
        help="folder for checkpoints (runs/<name>/checkpoints)",
    )
    parser.add_argument(
        "--address",
        default=os.environ.get("RAY_ADDRESS"),
        help="join this Ray cluster instead of starting one",
    )
    args = parser.parse_args(argv)
    if not args.db:
        parser.error("--db (or DICODE_DB_URL) is required")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s student %(message)s")
    repo = ArchiveRepository.open(args.db)
    run, settings = open_service_run(repo, args.run, args.profile, domain=args.domain)
    repo.close()
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(include_dashboard=True, dashboard_host="0.0.0.0", dashboard_port=8265)
    run_dir = str(Path(args.run_dir) / run.name)
    config = settings.to_dict()
    student = StudentActor.remote(args.db, run.id, run_dir, config, True)
    evaluator = EvaluatorActor.remote(args.db, run.id, config)
    trained, evaluated = student.run.remote(), evaluator.run.remote()
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.is_set():
        touch(os.environ.get("DICODE_HEARTBEAT", HEARTBEAT))
        ready, _ = ray.wait([trained], timeout=10)
        if ready:
            ray.get(trained)  # a crashed student ends the process (compose restarts it)
            break
    student.stop.remote()
    ray.get(trained, timeout=300)
    evaluator.stop.remote()
    ray.get(evaluated, timeout=300)
    ray.shutdown()


if __name__ == "__main__":
    main()
