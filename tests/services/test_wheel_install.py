"""An install that works without the checkout: build the wheel, install it into a fresh virtual
environment outside the checkout, and from there validate a seed level of every world in the
real sandbox, render every prompt template, start the API and fetch every page and what it
loads. A file read through the source tree instead of the package fails here.

The fresh environment gets the pinned third-party packages as hard links of the checkout's
virtual environment (seconds instead of minutes of `pip install -r requirements.lock`; the same
files) — never the checkout's own ``dicode``, which comes only from the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.services.conftest import wait_for
from tests.support.local_server import free_port
from tests.support.site_check import crawl_pages, fetch

# ~2.5 min on a loaded 2-core machine (three worlds validated with rollouts); `make test` and
# .ci/run run it, `-m 'not slow'` skips it.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "dicode", "archive_db", "services")
# The editable install of the checkout: what the fresh environment must not inherit.
EDITABLE = ("__editable__.dicode-", "__editable___dicode_", "dicode-")

# Runs inside the fresh environment, from a folder outside the checkout.
DRIVER = r'''
import json, sys
from string import Template

import archive_db, dicode, services
from archive_db import ArchiveRepository
from archive_db.recording import record_verdict
from dicode import domains
from dicode.levels.pipeline import Validator
from dicode.teachers.prompts import load_prompts, render_system_prompt

repo = ArchiveRepository.open(sys.argv[1])
report = {"files": [dicode.__file__, services.__file__, archive_db.__file__],
          "sys_path": sys.path, "worlds": {}}
for world in domains.names():
    domain = domains.get(world)
    prompts = load_prompts(domain)
    rendered = {"system": render_system_prompt(prompts)}
    for stage in ("description", "code", "repair"):
        template = getattr(prompts, stage)
        names = Template(template.text).get_identifiers()
        rendered[stage] = template.render(**{name: f"<{name}>" for name in names})
    rendered |= {f"instruction_{k.value}": v for k, v in prompts.instruction_hints.items()}
    name, code = next(iter(domain.seed_sources().items()))
    with Validator(domain, pool_size=4, warm=1, rollout_steps=50) as validator:
        verdict = validator.validate(code)
    run_id = repo.runs.create(f"wheel-{world}", domain=world, seed=0, config={}).id
    recorded = record_verdict(repo, run_id, world, "seed", code, verdict, 0.1, name=name)
    report["worlds"][world] = {
        "seed": name, "accepted": verdict.accepted, "stage": verdict.stage,
        "error": verdict.error, "level": recorded.level and recorded.level.id,
        "rendered": {stage: len(text) for stage, text in rendered.items()},
    }
repo.close()
print("REPORT " + json.dumps(report))
'''


@dataclass(frozen=True)
class FreshInstall:
    python: Path
    venv: Path
    workdir: Path  # outside the checkout: the current directory of everything run from there
    env: dict[str, str]


def _run(command: list[str | Path], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _fresh_env() -> dict[str, str]:
    """The caller's environment without anything that points into the checkout."""
    drop = {"PYTHONPATH", "PYTHONHOME", "DICODE_PROMPTS_DIR", "VIRTUAL_ENV", "PYTHONSTARTUP"}
    return {k: v for k, v in os.environ.items() if k not in drop}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FreshInstall]:
    base = tmp_path_factory.mktemp("wheel")
    assert not base.resolve().is_relative_to(ROOT)
    # Build from a copy of the sources: setuptools' build/ folder never lands in the checkout
    # and a stale one cannot leak files into the wheel.
    src = base / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(ROOT / name, src / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, src / name)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", base / "dist", src])
    (wheel,) = (base / "dist").glob("dicode-*.whl")

    venv = base / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
                .stdout.strip())  # fmt: skip
    shutil.rmtree(site)
    ours = Path(sysconfig.get_path("purelib"))
    editable = shutil.ignore_patterns(*(f"{prefix}*" for prefix in EDITABLE))
    try:
        shutil.copytree(ours, site, copy_function=os.link, ignore=editable)
    except (OSError, shutil.Error):  # another filesystem: install the pinned stack instead
        shutil.rmtree(site, ignore_errors=True)
        site.mkdir(parents=True)
        _run([python, "-m", "ensurepip", "-q"])
        _run([python, "-m", "pip", "install", "-q", "-r", ROOT / "requirements.lock"])
    _run([python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", wheel])
    workdir = base / "cwd"
    workdir.mkdir()
    env = _fresh_env() | {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    yield FreshInstall(python, venv, workdir, env)


@pytest.fixture(scope="module")
def archive(fresh: FreshInstall) -> tuple[str, dict[str, Any]]:
    """The driver's report, and the archive it wrote (a seed level per world)."""
    url = f"sqlite:///{fresh.workdir / 'archive.sqlite'}"
    done = _run([fresh.python, "-c", DRIVER, url], cwd=fresh.workdir, env=fresh.env, timeout=900)
    line = next(x for x in done.stdout.splitlines() if x.startswith("REPORT "))
    report: dict[str, Any] = json.loads(line.removeprefix("REPORT "))
    return url, report


def test_the_package_comes_from_the_wheel_not_the_checkout(
    fresh: FreshInstall, archive: tuple[str, dict[str, Any]]
) -> None:
    _, report = archive
    venv = fresh.venv.resolve()
    for file in report["files"]:
        assert Path(file).resolve().is_relative_to(venv), file
    inside = [p for p in report["sys_path"] if p and Path(p).resolve().is_relative_to(ROOT)]
    assert not inside, f"the checkout is on the fresh interpreter's sys.path: {inside}"


def test_a_seed_level_of_every_world_validates_and_every_prompt_renders(
    archive: tuple[str, dict[str, Any]],
) -> None:
    _, report = archive
    assert set(report["worlds"]) >= {"tetris", "craftax", "maze"}
    for world, outcome in report["worlds"].items():
        assert outcome["accepted"], f"{world}: {outcome['seed']} {outcome['stage']}: {outcome}"
        assert outcome["level"], world
        stages = outcome["rendered"]
        assert {"system", "description", "code", "repair"} <= set(stages), world
        assert len(stages) >= 8 and all(size > 0 for size in stages.values()), (world, stages)


def test_the_api_serves_every_page_and_its_scripts(
    fresh: FreshInstall, archive: tuple[str, dict[str, Any]]
) -> None:
    url, report = archive
    port = free_port()
    log = fresh.workdir / "api.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [fresh.python, "-m", "services.api", "--db", url, "--port", str(port)],
            cwd=fresh.workdir, env=fresh.env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: fetch(f"{base}/healthz", 2)[0] == 200 or server.poll() is not None,
                 60, "the API to answer")  # fmt: skip
        assert server.poll() is None, log.read_text()[-3000:]
        pages = ["/", "/docs", "/experiments"]
        for world, outcome in report["worlds"].items():
            run = f"wheel-{world}"
            pages += [f"/runs/{run}", f"/runs/{run}/lineage", f"/runs/{run}/attempts"]
            pages.append(f"/levels/{outcome['level']}")
            pages.append(f"/api/levels/{outcome['level']}/preview")
            pages.append(f"/api/levels/{outcome['level']}/preview.png")
        fetched = crawl_pages(base, pages)
    finally:
        server.terminate()
        server.wait(30)
    failed = [(f.url, f.status, f.error) for f in fetched if not f.ok]
    assert not failed, f"{failed}\n{log.read_text()[-3000:]}"
    loaded = {f.url.removeprefix(base) for f in fetched}
    static = ROOT / "services" / "api" / "static" / "web"
    # Every script and stylesheet of the checkout is loaded by some page (and answered 200).
    assert {f"/static/web/{p.name}" for p in static.iterdir()} <= loaded, loaded
