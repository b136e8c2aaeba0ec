"""The `dicode` command line: one Typer app with a sub-app per area.

The composition root of the commands. Those that work on one world take it the same way,
``--domain WORLD`` (``services.domain_option``): ``train`` and ``eval`` (the world's student on
its target game), ``levels``, ``teach`` and ``run``. What only one world has lives under that
world's own command (``dicode tetris …``: heuristic players, rendering, judges).
"""

from __future__ import annotations

import typer

from archive_db.cli import app as archive_app
from dicode.domains.tetris.cli import app as tetris_app
from services.levels_cli import app as levels_app
from services.run_cli import run as run_command
from services.student_cli import eval_command, train_command
from services.teach_cli import teach_app

app = typer.Typer(no_args_is_help=True, help="dicode: curricula written as code for RL students.")
app.command("run")(run_command)
app.command("train")(train_command)
app.command("eval")(eval_command)
app.add_typer(levels_app, name="levels")
app.add_typer(teach_app, name="teach")
app.add_typer(archive_app, name="archive")
app.add_typer(tetris_app, name="tetris")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
