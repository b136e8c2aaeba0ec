"""The `dicode` command line: one Typer app with a sub-app per area.

The composition root of the commands: the library's own (worlds, students, judges) and those
that resolve a world by name or need the archive or the services (`levels`, `run`, `archive`,
`teach`).
"""

from __future__ import annotations

import typer

from archive_db.cli import app as archive_app
from dicode.domains.tetris.cli import app as tetris_app
from dicode.judges.cli import judge_app
from dicode.student.craftax.cli import app as craftax_app
from dicode.student.tetris.cli import app as student_app
from services.levels_cli import app as levels_app
from services.run_cli import run as run_command
from services.teach_cli import teach_app

app = typer.Typer(no_args_is_help=True, help="dicode: curricula written as code for RL students.")
app.command("run")(run_command)
app.add_typer(tetris_app, name="tetris")
app.add_typer(craftax_app, name="craftax")
app.add_typer(archive_app, name="archive")
app.add_typer(levels_app, name="levels")
app.add_typer(teach_app, name="teach")
app.add_typer(judge_app, name="judge")
app.add_typer(student_app, name="student")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
