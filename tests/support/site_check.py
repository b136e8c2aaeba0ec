"""Fetch the API's web pages and everything they load, as a browser would (standard library
only, so a check outside any virtual environment can use it: ``deploy/compose_checks.py``).

A page's ``<script src>`` and ``<link href>`` are followed, and so are a module's relative
``import`` statements, so a script missing from an install is found without a browser.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

_PAGE_REFS = re.compile(r"""<(?:script|link)\b[^>]*?\b(?:src|href)=["']([^"']+)["']""", re.I)
_MODULE_IMPORTS = re.compile(r"""(?:\bfrom|\bimport)\s*["']([^"']+)["']""")


@dataclass(frozen=True)
class Fetched:
    """One URL as fetched: its status (0 when the request failed) and what went wrong."""

    url: str
    status: int
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status == 200


def fetch(url: str, timeout: float = 30.0) -> tuple[int, str, str]:
    """GET ``url``: status, content type and body (status 0 and the reason when it failed)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            body = response.read().decode("utf-8", errors="replace")
            return response.status, response.headers.get("content-type", ""), body
    except urllib.error.HTTPError as exc:
        return exc.code, "", str(exc)
    except (urllib.error.URLError, OSError) as exc:
        return 0, "", str(exc)


def _references(url: str, content_type: str, body: str) -> list[str]:
    """Same-site URLs that a page or a module loads (data: URLs and other hosts are not ours)."""
    path = urllib.parse.urlsplit(url).path
    if "html" in content_type:
        found = _PAGE_REFS.findall(body)
    elif path.endswith(".js"):
        found = [ref for ref in _MODULE_IMPORTS.findall(body) if ref.startswith((".", "/"))]
    else:
        return []
    base = urllib.parse.urlsplit(url)
    out = []
    for ref in found:
        absolute = urllib.parse.urljoin(url, ref)
        parts = urllib.parse.urlsplit(absolute)
        if parts.scheme in ("http", "https") and parts.netloc == base.netloc:
            out.append(absolute)
    return out


def crawl_pages(base_url: str, paths: list[str], timeout: float = 30.0) -> list[Fetched]:
    """Fetch each page under ``base_url`` and, once each, every script, module and stylesheet
    they load (transitively); one entry per URL, in the order fetched."""
    queue = [urllib.parse.urljoin(base_url, path) for path in paths]
    seen: set[str] = set()
    results = []
    while queue:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        status, content_type, body = fetch(url, timeout)
        results.append(Fetched(url, status, "" if status == 200 else body[:200]))
        if status == 200:
            queue.extend(_references(url, content_type, body))
    return results
