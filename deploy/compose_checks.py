"""The user checks of ``make compose-check`` (called by deploy/compose-check.sh once the
deployment is up): every service healthy, then what a user would look at — ``/healthz``, the
web pages and their scripts, the Ray dashboard, levels from the generator, the student's target
evaluations, a level submitted with the token. Standard library only (runs with the host's
python3). Prints one PASS/FAIL line per check; exits 1 if any failed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support.site_check
from tests.support.site_check import crawl_pages, fetch

SERVICES = ("postgres", "ray-head", "generator", "api")
STARTED = time.time()


def report(name: str, ok: bool, detail: str) -> bool:
    print(f"[{time.time() - STARTED:4.0f}s] {'PASS' if ok else 'FAIL'}: {name}: {detail}")
    sys.stdout.flush()
    return ok


def wait_for(what: Callable[[], tuple[bool, str]], timeout: float, every: float = 5.0) -> tuple[
    bool, str
]:
    """Poll ``what`` until it says done or ``timeout`` seconds passed; its last word."""
    deadline = time.monotonic() + timeout
    while True:
        done, detail = what()
        if done or time.monotonic() > deadline:
            return done, detail
        time.sleep(every)


def get_json(url: str) -> Any:
    status, _, body = fetch(url, timeout=30)
    return json.loads(body) if status == 200 else None


def services_healthy(project: str, env_file: str) -> tuple[bool, str]:
    command = ["docker", "compose", "-p", project, "--env-file", env_file, "ps", "-a"]
    try:
        out = subprocess.run(
            [*command, "--format", "json"], capture_output=True, text=True, timeout=60, check=True
        ).stdout
    except (subprocess.SubprocessError, OSError) as exc:
        return False, f"docker compose ps: {exc}"
    rows = [json.loads(line) for line in out.splitlines() if line.strip().startswith("{")]
    state = {row["Service"]: row.get("Health") or row.get("State", "?") for row in rows}
    detail = ", ".join(f"{name} {state.get(name, 'missing')}" for name in SERVICES)
    return all(state.get(name) == "healthy" for name in SERVICES), detail


def post(url: str, body: dict[str, Any], token: str | None) -> tuple[int, Any]:
    headers = {"content-type": "application/json"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")[:300]
    except (urllib.error.URLError, OSError) as exc:
        return 0, str(exc)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--project", required=True)
    parser.add_argument("--env-file", required=True)
    parser.add_argument("--api", required=True, help="the API's base URL")
    parser.add_argument("--dashboard", required=True, help="the Ray dashboard's base URL")
    parser.add_argument("--token", required=True, help="DICODE_API_TOKEN of the deployment")
    parser.add_argument("--run", default="main", help="DICODE_RUN of the deployment")
    parser.add_argument("--started", type=float, help="epoch seconds the log's clock counts from")
    parser.add_argument("--healthy-timeout", type=float, default=900)
    parser.add_argument("--arrival-timeout", type=float, default=1200)
    args = parser.parse_args()
    global STARTED
    STARTED = args.started or STARTED
    api, run = args.api.rstrip("/"), args.run
    results = []

    ok, detail = wait_for(lambda: services_healthy(args.project, args.env_file),
                          args.healthy_timeout, every=10)
    results.append(report("every service healthy", ok, detail))
    if not ok:
        return 1

    status, _, body = fetch(f"{api}/healthz")
    results.append(report("GET /healthz", status == 200, f"{status} {body[:120]}"))

    # The generator and the student create the run and its seed levels on start.
    def run_exists() -> tuple[bool, str]:
        levels = get_json(f"{api}/api/runs/{run}/levels?limit=1")
        return bool(levels and levels["total"]), f"levels: {levels and levels['total']}"

    ok, detail = wait_for(run_exists, args.arrival_timeout)
    results.append(report(f"run {run!r} with seed levels", ok, detail))
    first = get_json(f"{api}/api/runs/{run}/levels?limit=1")
    level_id = first["items"][0]["id"] if first and first["items"] else 1
    pages = ["/", "/docs", f"/runs/{run}", f"/runs/{run}/lineage", f"/runs/{run}/attempts",
             f"/levels/{level_id}"]  # fmt: skip
    fetched = crawl_pages(api, pages)
    bad = [f"{f.url} {f.status} {f.error}" for f in fetched if not f.ok]
    results.append(report("web pages and what they load", not bad and len(fetched) > len(pages),
                          "; ".join(bad) or f"{len(fetched)} URLs, all 200"))

    status, _, body = fetch(f"{args.dashboard.rstrip('/')}/")
    results.append(report("Ray dashboard", status == 200 and "ray" in body.lower(),
                          f"{status}, {len(body)} bytes"))

    def generated() -> tuple[bool, str]:
        levels = get_json(f"{api}/api/runs/{run}/levels?teacher=mutation&limit=1")
        attempts = get_json(f"{api}/api/runs/{run}/attempts?limit=1")
        count = levels["total"] if levels else None
        return bool(count), f"{count} mutation levels, {attempts and attempts['total']} attempts"

    results.append(report("levels from the generator", *wait_for(generated, args.arrival_timeout)))

    def evaluated() -> tuple[bool, str]:
        dashboard = get_json(f"{api}/api/runs/{run}/dashboard")
        points = len(dashboard["target"]) if dashboard else 0
        return points > 0, f"{points} target evaluations"

    results.append(report("the student's target evaluations",
                          *wait_for(evaluated, args.arrival_timeout, every=10)))

    detail_json = get_json(f"{api}/api/levels/{level_id}")
    code = (detail_json or {}).get("code", "") + "\n# submitted by make compose-check\n"
    submission = {"code": code, "name": "compose-check", "parent_id": level_id}
    status, _ = post(f"{api}/api/runs/{run}/levels", submission, token=None)
    results.append(report("a submission without the token is refused", status == 401, str(status)))
    status, answer = post(f"{api}/api/runs/{run}/levels", submission, token=args.token)
    accepted = status == 201 and isinstance(answer, dict) and answer.get("accepted") is True
    results.append(report("a level submitted with the token", accepted, f"{status} {answer}"))
    if accepted:
        # The attempt is the human's; its level may be an existing one (same content: duplicate).
        attempt = get_json(f"{api}/api/attempts/{answer['attempt_id']}") or {}
        level = get_json(f"{api}/api/levels/{answer['level_id']}")
        stored = attempt.get("teacher") == "human" and attempt.get("level_id") == answer[
            "level_id"] and level is not None  # fmt: skip
        results.append(report("the submission is in the archive", stored,
                              f"attempt {answer['attempt_id']} -> level {answer['level_id']}"
                              f"{' (duplicate)' if answer.get('duplicate') else ''}"))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
