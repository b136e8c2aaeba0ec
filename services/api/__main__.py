"""`python -m services.api --db URL`: serve the API with uvicorn (how docker compose runs it)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import uvicorn

from dicode.provenance import FIGURES
from services.api.app import create_app
from services.runs import parse_with_db


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m services.api", description=__doc__)
    parser.add_argument("--db", default=os.environ.get("DICODE_DB_URL"), help="archive URL")
    parser.add_argument("--host", default=os.environ.get("DICODE_API_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("DICODE_API_PORT", "8000")))
    parser.add_argument(
        "--figures",
        type=Path,
        default=Path(os.environ.get("DICODE_FIGURES", FIGURES)),
        help="the directory of experiment figures files that /experiments shows",
    )
    parser.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    args = parse_with_db(parser, argv)
    app = create_app(
        args.db, api_token=os.environ.get("DICODE_API_TOKEN") or None, figures=args.figures
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main()
