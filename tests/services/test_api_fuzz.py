"""The API under fire: schemathesis draws requests from the live ``/openapi.json`` (valid ones
and ones that break the schema) and sends them over real HTTP to uvicorn on a small real
archive (levels written through the repository, seed levels validated by the sandbox so
previews draw). No answer may be a 5xx; every error is JSON with a reason; every answer
matches its documented status, media type and body schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import APIOperation, BaseSchema, Case, GenerationMode, Response

from archive_db import ArchiveRepository
from archive_db.recording import record_verdict
from dicode.domains.tetris.seeds import seed_level_sources
from dicode.levels.pipeline import Validator
from dicode.levels.verdict import SANDBOX_UNAVAILABLE
from services.api.app import create_app
from tests.services.conftest import ServerThread
from tests.services.test_api_listing import TOKEN, fill

pytestmark = pytest.mark.slow
# Examples per operation and mode: 17 operations × 2 modes × this fit the two-minute budget.
MAX_EXAMPLES = 15
GUARD = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def live_schema(
    tmp_path_factory: pytest.TempPathFactory, validator: Validator
) -> Iterator[BaseSchema]:
    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz')}/archive.sqlite"
    fill(url)
    repo = ArchiveRepository.open(url)
    run = repo.runs.get("listed")
    for name, source in list(seed_level_sources().items())[:3]:
        verdict = validator.validate(source)
        record_verdict(repo, run.id, run.domain, "seed", source, verdict, 0.0, name=name)
    repo.close()
    with ServerThread(create_app(url, api_token=TOKEN, validator=validator)) as server:
        yield schemathesis.openapi.from_url(f"{server.url}/openapi.json")


@pytest.mark.parametrize("mode", list(GenerationMode))
def test_no_request_breaks_the_api(live_schema: BaseSchema, mode: GenerationMode) -> None:
    """Every operation of the live document, in valid (``positive``) and schema-breaking
    (``negative``) requests."""
    operations = [result.ok() for result in live_schema.get_all_operations()]
    assert len(operations) >= 17
    failures = []  # every operation is fuzzed; the report names each one that broke
    for operation in operations:
        if not (mode.is_positive or _takes_input(operation)):
            continue
        try:
            _fuzz(operation, mode)
        except (AssertionError, BaseExceptionGroup) as error:  # schemathesis' findings
            failures.append(f"{operation.label}: {error}")
    assert not failures, "\n\n".join(failures)


def _fuzz(operation: APIOperation, mode: GenerationMode) -> None:
    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,  # the same requests every run: a failure here is a regression
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    def one_operation(case: Case) -> None:
        answer = case.call_and_validate(headers=GUARD, timeout=60)
        where = f"{case.method} {case.formatted_path}"
        assert answer.status_code < 500 or _sandbox_refused(answer), f"{where}: {answer.text}"
        if answer.status_code >= 400:
            assert answer.headers["content-type"] == ["application/json"], where
            assert answer.json()["detail"], f"{where}: an error without a reason"

    one_operation()


def _takes_input(operation: APIOperation) -> bool:
    """Whether a request can break the schema at all (a route without parameters cannot)."""
    return any(len(part) for part in (operation.path_parameters, operation.query, operation.body))


def _sandbox_refused(answer: Response) -> bool:
    """The one documented 5xx: a submission on a host without sandbox walls (503)."""
    body: Any = answer.json()
    return answer.status_code == 503 and body.get("stage") == SANDBOX_UNAVAILABLE
