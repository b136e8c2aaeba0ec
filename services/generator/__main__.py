"""`python -m services.generator --db URL --run NAME`: the generator as a plain process.

This is how docker compose runs it. The run is opened (created with the profile's settings if
missing, else its stored settings are used); SIGTERM/SIGINT finish the attempts in flight and exit.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal

from archive_db import ArchiveRepository
from services.generator.service import Generator
from services.heartbeat import beat
from services.runs import add_run_arguments, open_service_run, parse_with_db

HEARTBEAT = "/tmp/dicode-generator.heartbeat"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m services.generator", description=__doc__)
    add_run_arguments(parser)
    parser.add_argument(
        "--teacher",
        default=os.environ.get("DICODE_TEACHER"),
        help="override the profile's teacher (mutation, llm)",
    )
    parser.add_argument("--max-attempts", type=int, default=None)
    args = parse_with_db(parser, argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s generator %(message)s")
    repo = ArchiveRepository.open(args.db)
    run, settings = open_service_run(
        repo, args.run, args.profile, domain=args.domain, teacher=args.teacher
    )
    generator = Generator(
        repo,
        run.id,
        settings.generator,
        settings.archive,
        domain=settings.domain,
        seed=settings.seed,
        stream=os.getpid(),  # replicas of the generator (compose --scale) draw apart
    )
    asyncio.run(_serve(generator, args.max_attempts))


async def _serve(generator: Generator, max_attempts: int | None) -> None:
    stop = asyncio.Event()
    heartbeat = asyncio.create_task(beat(os.environ.get("DICODE_HEARTBEAT", HEARTBEAT)))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        stats = await generator.run(stop, max_attempts)
        logging.info("stopped: %s", stats.as_dict())
    finally:
        heartbeat.cancel()
        generator.close()
        generator.repo.close()


if __name__ == "__main__":
    main()
