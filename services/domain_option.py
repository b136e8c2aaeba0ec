"""The ``--domain`` option of every command that works on one world, and its one lookup.

``dicode train``, ``eval``, ``levels …``, ``teach`` and ``run`` take the world the same way:
by name, resolved here once into the world's ``Domain`` object, which is what the command passes
down. An unknown name exits with status 2 and a message listing the known worlds.
"""

from __future__ import annotations

from typing import Annotated

import typer

from dicode import domains
from dicode.domains.base import Domain

EXIT_USAGE = 2

DomainOption = Annotated[
    str, typer.Option("--domain", help=f"The world: {', '.join(domains.names())}.")
]


def resolve_world(name: str) -> Domain:
    """The world called ``name``; an unknown one exits 2 naming the known worlds."""
    try:
        return domains.get(name)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
