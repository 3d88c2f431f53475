"""Per-client rate limits on attempts, certificate lookups and training: 429 with Retry-After and a sentence, counted
where every app on the database (or on Redis) sees the same count, and 503, never 500, when that store is down."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from pydantic import SecretStr, ValidationError
from sqlalchemy import create_engine, func, select

from app.main import create_app
from app.quiz.certificate_id import new_certificate_id
from app.quiz.signing import new_seed_text
from app.settings import Settings
from app.store.database import open_session
from app.store.models import Attempt, RateLimitCounter
from app.web.platform.rate_limiting import client_key, wait_in_words
from tests.helpers.html import Elements
from tests.helpers.net import free_port
from tests.helpers.quiz import right_answer, start
from tests.helpers.refusals import REFUSALS
from tests.helpers.training import SHORT, SHORT_QUERY
from tests.redis_server import redis_server_url

# One request of each kind, and the status it answers while under the limit.
REQUESTS: dict[str, tuple[Callable[[TestClient], Response], int]] = {
    "attempts": (lambda client: client.post("/api/quiz/attempts"), 201),
    "verify": (lambda client: client.get(f"/api/certificates/{new_certificate_id()}"), 404),
    "train": (lambda client: client.post("/api/train", json=SHORT), 200),
    "sums": (lambda client: client.get("/api/accumulation?n=100"), 200),
}


def assert_refused(response: Response, kind: str) -> None:
    """A 429 whose sentence names the kind and the seconds that Retry-After gives."""
    assert response.status_code == 429
    seconds = int(response.headers["Retry-After"])
    assert 1 <= seconds <= (86_400 if kind == "passes" else 60)
    detail = response.json()["detail"] if response.headers["content-type"].startswith("application/json") \
        else Elements(response.text).text_of("data-error")
    assert detail == f"{REFUSALS[kind]}; please try again in {wait_in_words(seconds)}."


@pytest.mark.parametrize("kind", sorted(REQUESTS))
def test_each_kind_answers_429_with_retry_after_and_its_sentence_past_the_limit(make_settings, kind):
    send, allowed = REQUESTS[kind]
    with TestClient(create_app(make_settings(**{f"rate_limit_{kind}": "2/minute"}))) as client:
        assert [send(client).status_code for _ in range(2)] == [allowed, allowed]
        assert_refused(send(client), kind)
        assert_refused(send(client), kind)


def test_every_route_that_trains_counts_against_the_training_limit(make_settings):
    with TestClient(create_app(make_settings(rate_limit_train="2/minute"))) as client:
        assert client.get(f"/train?{SHORT_QUERY}").status_code == 200  # the form alone trains nothing
        assert client.get(f"/train/stream?{SHORT_QUERY}").status_code == 200  # 1 of 2
        # The finished table the page's script fetches after the stream comes from the cache: not counted.
        assert client.get(f"/train?{SHORT_QUERY}&run=1").status_code == 200
        assert client.get(f"/train?{SHORT_QUERY}&seed=1&run=1").status_code == 200  # trains: 2 of 2
        assert_refused(client.post("/api/train", json=SHORT), "train")
        # The stream's refusal is JSON, which the page's script shows; the pages show the sentence.
        assert_refused(client.get(f"/train/stream?{SHORT_QUERY}"), "train")
        assert_refused(client.get(f"/train?{SHORT_QUERY}&seed=2&run=1"), "train")
        assert_refused(client.get(f"/embed/train?{SHORT_QUERY}&seed=3&run=1"), "train")
        assert client.get(f"/train?{SHORT_QUERY}").status_code == 200
        assert client.post("/api/quiz/attempts").status_code == 201, "other kinds keep their own count"


def test_the_accumulation_page_and_its_frame_count_against_the_sums_limit(make_settings):
    with TestClient(create_app(make_settings(rate_limit_sums="2/minute"))) as client:
        assert client.get("/learn/accumulation?n=100").status_code == 200
        assert client.get("/embed/learn/accumulation?n=100").status_code == 200
        assert_refused(client.get("/learn/accumulation?n=100"), "sums")


def test_two_apps_on_one_database_share_the_count(make_settings):
    """As two workers or instances would: hits through either app count against one limit, and outlive the app."""
    settings = make_settings(rate_limit_attempts="3/minute")
    with TestClient(create_app(settings)) as first, TestClient(create_app(settings)) as second:
        statuses = [client.post("/api/quiz/attempts").status_code for client in (first, second, first)]
        assert statuses == [201, 201, 201]
        assert_refused(second.post("/api/quiz/attempts"), "attempts")
        assert_refused(first.post("/api/quiz/attempts"), "attempts")
    with TestClient(create_app(settings)) as restarted:
        assert_refused(restarted.post("/api/quiz/attempts"), "attempts")


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    yield from redis_server_url(tmp_path)


def _counter_rows(settings: Settings) -> int:
    engine = create_engine(settings.database_url)
    try:
        with engine.connect() as connection:
            return connection.execute(select(func.count()).select_from(RateLimitCounter)).scalar_one()
    finally:
        engine.dispose()


def test_with_redis_configured_the_count_lives_in_redis(make_settings, redis_url):
    settings = make_settings(rate_limit_train="2/minute", redis_url=SecretStr(redis_url))
    with TestClient(create_app(settings)) as first, TestClient(create_app(settings)) as second:
        assert first.post("/api/train", json=SHORT).status_code == 200
        assert second.post("/api/train", json=SHORT).status_code == 200
        assert_refused(first.post("/api/train", json=SHORT), "train")
    assert _counter_rows(settings) == 0, "nothing was counted in the database"


def test_redis_down_answers_503_with_a_sentence(make_settings):
    settings = make_settings(redis_url=SecretStr(f"redis://127.0.0.1:{free_port()}/0"))  # nothing listens there
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        refused = client.post("/api/quiz/attempts")
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "60"
        assert refused.json()["detail"] == "The rate-limit counters are not reachable just now; try again in a minute."
        stream = client.get(f"/train/stream?{SHORT_QUERY}")
        assert stream.status_code == 503 and "rate-limit counters" in stream.json()["detail"]
        page = client.get(f"/train?{SHORT_QUERY}&run=1")
        assert page.status_code == 503 and "rate-limit counters" in Elements(page.text).text_of("data-error")
        assert client.get("/visualise/bfloat16?value=0.1").status_code == 200, "routes without a limit still serve"


def test_a_database_without_the_counters_table_answers_503_not_500(tmp_path):
    """Production migrates apart from starting; until it has, a limited route says so instead of failing."""
    settings = Settings(environment="test", database_url=f"sqlite:///{tmp_path / 'unmigrated.db'}",
                        signing_key=SecretStr(new_seed_text()))
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        refused = client.post("/api/train", json=SHORT)
        assert refused.status_code == 503 and "not migrated" in refused.json()["detail"]


def test_the_training_limit_must_read_as_limits():
    with pytest.raises(ValidationError, match="PRECISION_LAB_RATE_LIMIT_TRAIN takes limits such as"):
        Settings(rate_limit_train="often")
    assert Settings(rate_limit_train="5/minute;100/day").rate_limit_train == "5/minute;100/day"


def test_a_plain_redis_url_is_honoured_and_a_wrong_one_refused_without_echoing_it(monkeypatch):
    monkeypatch.delenv("PRECISION_LAB_REDIS_URL", raising=False)
    monkeypatch.setenv("REDIS_URL", "redis://:s3cret-password@cache.internal:6379/2")
    url = Settings().redis_url
    assert url is not None and url.get_secret_value() == "redis://:s3cret-password@cache.internal:6379/2"
    assert "s3cret" not in repr(Settings())
    monkeypatch.setenv("REDIS_URL", "http://:s3cret-password@cache.internal")
    with pytest.raises(ValidationError, match=re.escape("PRECISION_LAB_REDIS_URL must start with")) as refused:
        Settings()
    assert "s3cret" not in str(refused.value)


@pytest.mark.parametrize(("host", "prefix", "key"), [
    ("192.0.2.7", 64, "192.0.2.7"),
    ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64, "2001:db8:1:2::/64"),
    ("2001:DB8:1:2::1", 64, "2001:db8:1:2::/64"),  # one address, however it is written
    ("2001:db8:1:2::1", 48, "2001:db8:1::/48"),
    ("2001:db8:1:2::1", 128, "2001:db8:1:2::1/128"),
    ("::ffff:192.0.2.7", 64, "192.0.2.7"),  # IPv4-mapped: the IPv4 client it is
    ("fe80::1%eth0", 64, "fe80::/64"),
    (None, 64, "unknown"),
    ("testclient", 64, "testclient"),
])
def test_clients_are_keyed_by_ipv4_address_or_ipv6_network(host, prefix, key):
    assert client_key(host, prefix) == key


def test_one_ipv6_network_shares_one_count_and_its_neighbour_has_its_own(make_settings):
    app = create_app(make_settings(rate_limit_verify="2/minute"))

    def lookup(host: str) -> Response:
        with TestClient(app, client=(host, 50000)) as client:
            return client.get(f"/api/certificates/{new_certificate_id()}")

    assert [lookup(f"2001:db8:1:2::{n:x}").status_code for n in (1, 0xFFFF)] == [404, 404]
    assert_refused(lookup("2001:db8:1:2:ffff:ffff:ffff:ffff"), "verify")  # a third address of the same /64
    assert lookup("2001:db8:1:3::1").status_code == 404  # the next /64 is someone else
    assert [lookup(f"192.0.2.{n}").status_code for n in (1, 2, 3)] == [404, 404, 404]  # IPv4: each address


def test_the_ipv6_prefix_is_a_setting(make_settings):
    app = create_app(make_settings(rate_limit_verify="1/minute", rate_limit_ipv6_prefix=128))
    statuses = []
    for host in ("2001:db8::1", "2001:db8::2", "2001:db8::2"):
        with TestClient(app, client=(host, 50000)) as client:
            statuses.append(client.get(f"/api/certificates/{new_certificate_id()}").status_code)
    assert statuses == [404, 404, 429]


def test_a_bot_that_reads_the_answers_from_the_feedback_earns_no_more_certificates_a_day_than_the_limit(
        make_settings):
    """A bot that knows every answer (as one that had read them all from the feedback would) passes each attempt;
    past the daily limit its passed attempts stay open (429), so a day of farming yields `limit` certificates."""
    limit = 3
    app = create_app(make_settings(rate_limit_passes=f"{limit}/day", rate_limit_attempts="1000/minute"))
    earned, refused = [], []
    with TestClient(app) as client:
        for _ in range(limit + 3):
            attempt_id, owner, questions = start(client)
            url = f"/api/quiz/attempts/{attempt_id}"
            for question in questions:
                answer = right_answer(question["id"])
                client.post(f"{url}/answers", json={"question_id": question["id"], "answer": answer}, headers=owner)
            finished = client.post(f"{url}/finish", json={"name": "Bot"}, headers=owner)
            if finished.status_code == 200:
                earned.append(finished.json()["certificate_id"])
            else:
                assert_refused(finished, "passes")
                refused.append(attempt_id)
        with open_session(client.app.state.engine) as session:  # still open, nothing lost: finishable tomorrow
            assert all(session.get(Attempt, attempt_id).finished_at is None for attempt_id in refused)
        assert len(earned) == limit and all(earned) and len(refused) == 3


@pytest.mark.parametrize(("seconds", "words"), [(1, "1 second"), (60, "60 seconds"), (121, "3 minutes"),
                                                (3600, "60 minutes"), (7200, "2 hours"), (86_400, "24 hours")])
def test_a_wait_is_said_in_the_unit_a_person_reads(seconds, words):
    assert wait_in_words(seconds) == words
