"""Two app processes on one PostgreSQL database count one rate limit: in Redis when it is configured, otherwise in
PostgreSQL. Requests spread over both instances are refused once the limit is reached, whichever one they reach."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.store.database import create_database_engine
from app.store.models import RateLimitCounter
from tests.helpers.refusals import REFUSALS
from tests.redis_server import redis_server_url
from tests.system.system_servers import two_instances as start_two_instances

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    yield from redis_server_url(tmp_path)


@pytest.fixture(params=["redis", "postgresql"])
def counters(request: pytest.FixtureRequest) -> dict[str, str]:
    """The environment that says where the counters live: a fresh Redis server, or (without one) the database."""
    if request.param == "postgresql":
        return {}
    return {"PRECISION_LAB_REDIS_URL": request.getfixturevalue("redis_url")}


@pytest.fixture
def two_instances(postgres_url: str, counters: dict[str, str], tmp_path: Path):
    """Instances A and B on one migrated PostgreSQL schema, each allowing a client 3 quiz attempts a minute."""
    env = {"PRECISION_LAB_RATE_LIMIT_ATTEMPTS": "3/minute", **counters}
    with start_two_instances(postgres_url, tmp_path, env) as clients:
        yield clients


def _rows_counted_in(database_url: str) -> int:
    engine = create_database_engine(database_url)
    try:
        with engine.connect() as connection:
            return connection.execute(select(func.count()).select_from(RateLimitCounter)).scalar_one()
    finally:
        engine.dispose()


def test_a_limit_counted_on_one_instance_holds_on_the_other(two_instances, counters, postgres_url):
    a, b = two_instances
    statuses = [client.post("/api/quiz/attempts").status_code for client in (a, b, a)]
    assert statuses == [201, 201, 201]
    for client in (b, a, b):  # each instance alone has seen at most two of the three
        refused = client.post("/api/quiz/attempts")
        assert refused.status_code == 429, refused.text
        seconds = int(refused.headers["Retry-After"])
        assert 1 <= seconds <= 60
        assert refused.json()["detail"] == f"{REFUSALS['attempts']}; please try again in {seconds} seconds."
    assert _rows_counted_in(postgres_url) == (0 if counters else 1), "the counters live where the settings say"
