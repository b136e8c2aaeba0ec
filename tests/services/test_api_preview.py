"""The level preview endpoints over real HTTP: one renderer per domain, chosen by the bundle's
domain (seed levels of both domains validated in the real sandbox and stored in a real
archive)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from archive_db import ArchiveRepository
from archive_db.kinds import HUMAN_TEACHER
from archive_db.recording import record_verdict
from archive_db.records import NewLevel
from dicode import domains
from dicode.domains.craftax.seed_levels import seed_level_source
from dicode.domains.tetris.seeds import SEED_LEVEL_DIR
from dicode.levels.pipeline import Validator
from services.api.app import create_app
from tests.services.conftest import ServerThread

LEVELS = {
    "craftax": seed_level_source("fight_zombies"),
    "tetris": (SEED_LEVEL_DIR / "06_garbage_dig.py").read_text(encoding="utf-8"),
}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, dict[str, int]]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('preview')}/archive.sqlite"
    repo = ArchiveRepository.open(url)
    level_ids = {}
    for domain, code in LEVELS.items():
        run_id = repo.runs.create(domain, domain=domain, seed=0).id
        with Validator(domains.get(domain), pool_size=2, warm=1, rollouts=False) as validator:
            verdict = validator.validate(code)
        recorded = record_verdict(repo, run_id, domain, HUMAN_TEACHER, code, verdict, 0.0)
        assert recorded.level is not None, verdict.error
        level_ids[domain] = recorded.level.id
    # Levels a renderer cannot draw: no bundle stored, and bytes that are no bundle.
    for name, bundle in (("none", None), ("garbage", b"not an npz")):
        level = NewLevel(domain="tetris", content_hash=name, teacher=HUMAN_TEACHER, bundle=bundle)
        level_ids[name] = repo.levels.insert(run_id, level).id
    repo.close()
    app = create_app(url)
    with ServerThread(app) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        yield client, level_ids


def test_craftax_preview_text_and_png(api: tuple[httpx.Client, dict[str, int]]) -> None:
    client, ids = api
    answer = client.get(f"/api/levels/{ids['craftax']}/preview", params={"instances": 1})
    assert answer.status_code == 200, answer.text
    preview = answer.json()
    assert preview["domain"] == "craftax"
    assert "goal: eat_cow, defeat_zombie" in preview["text"] and "@ player" in preview["text"]
    image = client.get(f"/api/levels/{ids['craftax']}/preview.png")
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    assert image.content[:8] == b"\x89PNG\r\n\x1a\n"


def test_tetris_preview_and_errors(api: tuple[httpx.Client, dict[str, int]]) -> None:
    client, ids = api
    preview = client.get(f"/api/levels/{ids['tetris']}/preview").json()
    assert (
        preview["domain"] == "tetris" and "goal: clear 4 lines within 40 pieces" in preview["text"]
    )
    assert client.get("/api/levels/999/preview").status_code == 404
    assert client.get(f"/api/levels/{ids['tetris']}/preview?instances=0").status_code == 422
    assert 'id="preview"' in client.get("/").text


def test_undrawable_levels_answer_json_errors(api: tuple[httpx.Client, dict[str, int]]) -> None:
    client, ids = api
    for suffix in ("preview", "preview.png"):
        missing = client.get(f"/api/levels/{ids['none']}/{suffix}")
        assert missing.status_code == 404 and "no stored bundle" in missing.json()["detail"]
        broken = client.get(f"/api/levels/{ids['garbage']}/{suffix}")
        assert broken.status_code == 422 and broken.headers["content-type"] == "application/json"
        assert broken.json()["detail"].startswith(f"level {ids['garbage']}:")
    assert client.get(f"/api/levels/{ids['garbage']}").json()["bundle"]["error"]
    assert client.get(f"/api/levels/{ids['none']}").json()["bundle"] is None
