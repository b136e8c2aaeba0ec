"""`python -m services.student --db URL --run NAME`: the student on a Ray cluster.

How the compose ``ray-head`` service runs it: starts (or joins, with ``--address``) Ray, then
runs the student and evaluator actors until SIGTERM; always resumes from the newest checkpoint.
The dashboard listens on 0.0.0.0:8265 (``--dashboard-port``) when this process starts the
head. On a cluster, ``--placement`` puts each actor on the nodes carrying its resources
(`services.placement`) and ``--generators N`` starts N generator actors there too (how the
KubeRay RayJob runs them).
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
from services.generator.actor import GeneratorActor
from services.heartbeat import touch
from services.placement import ENV, Placement, place
from services.runs import add_run_arguments, open_service_run, parse_with_db
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
    parser.add_argument(
        "--dashboard-port",
        type=int,
        default=int(os.environ.get("DICODE_DASHBOARD_PORT", "8265")),
        help="port of Ray's dashboard when this process starts the head",
    )
    parser.add_argument(
        "--placement",
        default=os.environ.get(ENV),
        help='Ray resources per role as JSON, e.g. \'{"student": {"student": 1, "GPU": 1}}\'',
    )
    parser.add_argument(
        "--generators",
        type=int,
        default=int(os.environ.get("DICODE_GENERATORS", "0")),
        help="generator actors to start on the cluster (0: generators are their own processes)",
    )
    args = parse_with_db(parser, argv)
    try:
        placement = Placement.parse(args.placement)
    except ValueError as error:
        parser.error(str(error))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s student %(message)s")
    repo = ArchiveRepository.open(args.db)
    run, settings = open_service_run(repo, args.run, args.profile, domain=args.domain)
    repo.close()
    if args.address:
        ray.init(address=args.address)
    else:
        # "local": a cluster of its own; ray.init() alone would join any cluster already
        # running on the machine (found through /tmp/ray), contrary to this command's contract.
        ray.init(
            address="local",
            include_dashboard=True,
            dashboard_host="0.0.0.0",
            dashboard_port=args.dashboard_port,
        )
    run_dir = str(Path(args.run_dir) / run.name)
    config = settings.to_dict()
    student = place(StudentActor, "student", placement).remote(
        args.db, run.id, run_dir, config, True
    )
    evaluator = place(EvaluatorActor, "evaluator", placement).remote(args.db, run.id, config)
    generators = [
        place(GeneratorActor, "generator", placement).remote(args.db, run.id, config, stream)
        for stream in range(args.generators)
    ]
    trained, evaluated = student.run.remote(), evaluator.run.remote()
    generated = [generator.run.remote() for generator in generators]
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.is_set():
        touch(os.environ.get("DICODE_HEARTBEAT", HEARTBEAT))
        ready, _ = ray.wait([trained], timeout=10)
        if ready:
            try:
                ray.get(trained)
            except ray.exceptions.RayError as error:
                # A crashed student ends the process (compose restarts it) with one line saying
                # why: a remote traceback's last line names neither the run nor the file.
                cause = getattr(error, "cause", None) or error
                raise SystemExit(f"student of run {run.name!r} stopped: {cause}") from error
            break
    student.stop.remote()
    ray.get(trained, timeout=300)
    evaluator.stop.remote()
    ray.get(evaluated, timeout=300)
    for generator in generators:
        generator.stop.remote()
    ray.get(generated, timeout=300)
    ray.shutdown()


if __name__ == "__main__":
    main()
