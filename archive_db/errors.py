"""The archive's own errors: what a caller can catch and turn into an answer."""

from __future__ import annotations

import logging
import time


class ArchiveError(Exception):
    """Base class of the archive's own errors."""


class NotFoundError(ArchiveError, LookupError):
    """A run, level or other record that was asked for does not exist."""


class InvalidRecordError(ArchiveError, ValueError):
    """A record handed to the archive is inconsistent (the message says how)."""


class ParentFullError(ArchiveError):
    """A child drawn under the strict parent rule found its parent full: concurrent attempts
    (other generators, or attempts in flight) gave it its last allowed children first."""


def is_unreachable(error: BaseException) -> bool:
    """Whether ``error`` says the database cannot be reached right now (server down or
    restarting, connection cut), as opposed to a wrong query: worth waiting for, not a bug."""
    from sqlalchemy import exc  # the errors above need no SQLAlchemy

    if isinstance(error, exc.OperationalError | exc.InterfaceError):
        return True
    return isinstance(error, exc.DBAPIError) and bool(error.connection_invalidated)


class Outage:
    """One service's view of an archive outage: says when it began (once) and, when the
    archive answers again, how long the service was blind."""

    def __init__(self, log: logging.Logger) -> None:
        self._log = log
        self._since: float | None = None  # monotonic seconds

    def began(self, error: BaseException) -> None:
        if self._since is None:
            self._since = time.monotonic()
            self._log.error("archive unreachable, waiting for it: %s", str(error).splitlines()[0])

    def ended(self) -> None:
        if self._since is not None:
            blind = time.monotonic() - self._since
            self._log.warning("archive reachable again after %.1f s", blind)
            self._since = None
