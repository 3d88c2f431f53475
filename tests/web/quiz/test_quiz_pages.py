"""The quiz pages through TestClient: whole attempts with JavaScript off (forms and redirects) and with htmx,
CSRF, the owner cookie, locked answers, answers absent before answering, and hostile form input."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.quiz import ChoiceQuestion
from app.web.platform.csrf import TOKEN_HEADER, csrf_token_for, signed_owner
from tests.helpers.html import HX, PAGE_BUDGET, Elements
from tests.helpers.quiz import (
    BANK,
    form_value,
    hidden_texts,
    learn_ids,
    question_ids,
    right_answer,
    stored_question,
    wrong_answer,
)
from tests.helpers.quiz import start as api_start

ATTEMPT_URL = re.compile(r"/quiz/attempts/[\w-]+")


def csrf_of(html: str) -> str:
    return next(a["value"] for a in Elements(html).having("name") if a["name"] == "csrf_token")


def start(client) -> tuple[str, str]:
    """Open /quiz, start an attempt with its form: the attempt's URL and the CSRF token of its forms."""
    token = csrf_of(client.get("/quiz").text)
    response = client.post("/quiz/attempts", data={"csrf_token": token}, follow_redirects=False)
    url = response.headers["location"]
    assert response.status_code == 303 and ATTEMPT_URL.fullmatch(url)
    learn_ids(client.app.state.engine, url.rsplit("/", 1)[1], question_ids(client.get(url).text))
    return url, token


def answer(client, url: str, token: str, question_id: str, value: object, **kwargs):
    data = {"csrf_token": token, "question_id": question_id, "answer": form_value(value)}
    return client.post(f"{url}/answers", data=data, follow_redirects=False, **kwargs)


def test_the_start_page_explains_the_quiz_and_gives_the_browser_its_owner_cookie(client):
    response = client.get("/quiz")
    page = Elements(response.text)
    assert response.status_code == 200 and "Pass mark 80%" in response.text
    assert [a["action"] for _, a in page.tags if "data-start-form" in a] == ["/quiz/attempts"]
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("quiz_owner=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert client.get("/quiz", headers=HX).text.count("<html") == 0


def test_over_https_the_cookie_also_works_inside_an_embedding_iframe(make_settings):
    with TestClient(create_app(make_settings()), base_url="https://lab.example") as client:
        cookie = client.get("/quiz").headers["set-cookie"]
    assert "Secure" in cookie and "SameSite=none" in cookie and "HttpOnly" in cookie
    # the __Host- prefix: browsers keep it only Secure, for Path=/ and with no Domain, set by this host itself
    assert cookie.startswith("__Host-quiz_owner=") and "Path=/" in cookie and "Domain" not in cookie


def _owner_of(response) -> str:  # type: ignore[no-untyped-def]
    value = response.headers["set-cookie"].split(";", 1)[0].split("=", 1)[1]
    return value.rpartition(".")[0]


@pytest.mark.parametrize("planted", ["attacker-chosen-token", "attacker-chosen-token.bm90LWEtbWFj", "", "."])
def test_a_planted_owner_cookie_is_never_adopted(client, planted):
    """Session fixation: a token that an attacker put in the student's browser is replaced by a fresh one, so
    the attacker cannot open the attempts the student then starts."""
    client.cookies.set("quiz_owner", planted)
    response = client.get("/quiz")
    owner = _owner_of(response)
    assert owner and owner != planted.rpartition(".")[0] and len(owner) >= 40
    key = client.app.state.settings.load_signing_key()
    assert f'value="{csrf_token_for(key, owner)}"' in response.text


def test_the_sites_own_cookie_is_kept_from_visit_to_visit(client):
    first = _owner_of(client.get("/quiz"))
    assert _owner_of(client.get("/quiz")) == first


def test_over_https_a_cookie_without_the_host_prefix_is_not_read(make_settings):
    with TestClient(create_app(make_settings()), base_url="https://lab.example") as client:
        key = client.app.state.settings.load_signing_key()
        client.cookies.set("quiz_owner", signed_owner(key, "a-token-set-over-plain-http-or-by-a-subdomain"))
        assert _owner_of(client.get("/quiz")) != "a-token-set-over-plain-http-or-by-a-subdomain"


def test_a_whole_attempt_with_javascript_off_passes_and_links_its_certificate(client):
    url, token = start(client)
    page = client.get(url)
    assert page.status_code == 200 and len(page.content) < PAGE_BUDGET
    ids = question_ids(page.text)
    assert len(ids) == 12
    for number, question_id in enumerate(ids, start=1):
        response = answer(client, url, token, question_id, right_answer(question_id))
        assert response.status_code == 303 and response.headers["location"] == f"{url}#question-{number}"
    page = Elements(client.get(url).text)
    assert [a["data-correct"] for a in page.having("data-feedback")] == ["true"] * 12
    assert not page.having("data-answer-form")
    finished = client.post(f"{url}/finish", data={"csrf_token": token, "name": "Ada Lovelace"}, follow_redirects=False)
    assert finished.status_code == 303
    result = client.get(url).text
    assert "12 of 12 right (100%)" in result and 'data-passed="true"' in result
    link = next(a["href"] for a in Elements(result).having("data-certificate-link"))
    assert "Ada Lovelace" in client.get(link).text


def test_a_failed_attempt_through_the_pages_has_no_certificate(client):
    url, token = start(client)
    for question_id in question_ids(client.get(url).text)[:6]:
        assert answer(client, url, token, question_id, wrong_answer(question_id)).status_code == 303
    client.post(f"{url}/finish", data={"csrf_token": token, "name": ""})
    result = Elements(client.get(url).text)
    assert "0 of 12 right (0%)" in client.get(url).text
    assert [a["data-passed"] for a in result.having("data-passed")] == ["false"]
    assert not result.having("data-certificate-link")
    assert [a["data-correct"] for a in result.having("data-feedback")] == ["false"] * 6
    assert not result.having("data-answer-form") and not result.having("data-finish-form")
    last = question_ids(client.get(url).text)[-1]
    refused = answer(client, url, token, last, right_answer(last))
    assert refused.status_code == 422 and "finished" in Elements(refused.text).text_of("data-error")


def test_htmx_gets_only_the_question_block_with_its_feedback_and_the_new_progress(client):
    url, token = start(client)
    question_id = question_ids(client.get(url).text)[3]
    response = answer(client, url, token, question_id, right_answer(question_id), headers=HX)
    assert response.status_code == 200 and "<html" not in response.text
    block = Elements(response.text)
    assert [a["data-question-id"] for a in block.having("data-question-id")] == [question_id]
    assert block.having("data-feedback")[0]["data-correct"] == "true"
    assert block.having("autofocus") and 'data-hx-swap-oob="true"' in response.text
    assert block.text_of("data-progress") == "Answered 1 of 12, 1 right so far."


def test_answers_and_explanations_are_not_on_the_page_before_answering(client):
    url, token = start(client)
    html = client.get(url).text
    ids = question_ids(html)
    for question_id in ids:
        for text in hidden_texts(question_id):
            assert text not in html
    assert "data-feedback" not in html and "data-correct-answer" not in html
    answer(client, url, token, ids[0], wrong_answer(ids[0]))
    answered = client.get(url).text
    assert Elements(answered).having("data-correct-answer")
    for question_id in ids[1:]:
        for text in hidden_texts(question_id):
            assert text not in answered


def test_choices_are_labelled_radios_or_checkboxes_and_typed_answers_have_labels(client):
    url, _ = start(client)
    page = Elements(client.get(url).text)
    labels = {a["for"] for tag, a in page.tags if tag == "label" and "for" in a}
    inputs = [a for tag, a in page.tags if tag == "input" and a.get("name") == "answer"]
    assert inputs and all(a["id"] in labels for a in inputs)
    for attrs in page.having("data-question-type"):
        question = stored_question(attrs["data-question-id"])
        assert isinstance(question, ChoiceQuestion) == (attrs["data-question-type"] in ("single", "multiple"))
    assert {a["type"] for a in inputs} <= {"radio", "checkbox", "text"}


def test_a_second_answer_through_the_form_is_refused_and_the_first_stands(client):
    url, token = start(client)
    question_id = question_ids(client.get(url).text)[0]
    answer(client, url, token, question_id, wrong_answer(question_id))
    for headers in ({}, HX):
        again = answer(client, url, token, question_id, right_answer(question_id), headers=headers)
        assert again.status_code == 422
        block = Elements(again.text)
        assert "answer already" in block.text_of("data-error")
        assert block.having("data-feedback")[0]["data-correct"] == "false"


@pytest.mark.parametrize("value", ["", "   ", "x" * 300, "<script>alert(1)</script>", "1e999999999", ["0", "99"]])
def test_an_unreadable_answer_gets_a_422_sentence_and_the_question_stays_open(client, value):
    url, token = start(client)
    for question_id in question_ids(client.get(url).text)[:12]:
        response = answer(client, url, token, question_id, value, headers=HX)
        if response.status_code == 200:
            continue  # a value that reads as a (wrong) answer to this question
        assert response.status_code == 422
        block = Elements(response.text)
        assert block.text_of("data-error") and block.having("data-answer-form")
        typed = [a["value"] for a in block.having("aria-invalid")]
        if typed:  # a typed answer comes back in its box, to be corrected
            assert typed == [value[:200] if isinstance(value, str) and value.strip() else ""]
        assert "<script>alert(1)</script>" not in response.text


def test_an_answer_to_a_question_not_drawn_is_refused(client):
    url, token = start(client)
    drawn = set(question_ids(client.get(url).text))
    other = next(question_id for question_id in BANK.questions if question_id not in drawn)
    response = answer(client, url, token, other, 0)
    assert response.status_code == 422 and Elements(response.text).text_of("data-error")


@pytest.mark.parametrize("name", ["", "x" * 201, "Ada\u0007"])
def test_a_pass_without_a_printable_name_is_refused_and_the_attempt_stays_open(client, name):
    url, token = start(client)
    for question_id in question_ids(client.get(url).text):
        answer(client, url, token, question_id, right_answer(question_id))
    refused = client.post(f"{url}/finish", data={"csrf_token": token, "name": name})
    assert refused.status_code == 422 and Elements(refused.text).text_of("data-error")
    assert client.get(url).text.count("data-finish-form") == 1


def test_every_form_needs_its_csrf_token(client):
    url, token = start(client)
    question_id = question_ids(client.get(url).text)[0]
    posts = [
        ("/quiz/attempts", {}),
        ("/quiz/attempts", {"csrf_token": "forged"}),
        (f"{url}/answers", {"question_id": question_id, "answer": "0"}),
        (f"{url}/answers", {"csrf_token": token[:-2] + "xx", "question_id": question_id, "answer": "0"}),
        (f"{url}/finish", {"name": "Eve"}),
        (f"{url}/finish", {"csrf_token": "", "name": "Eve"}),
    ]
    for path, data in posts:
        response = client.post(path, data=data, follow_redirects=False)
        assert response.status_code == 403, path
        assert "reload the page" in Elements(response.text).text_of("data-error")
    assert "data-feedback" not in client.get(url).text


def test_without_the_cookie_a_form_is_refused_with_a_sentence(client):
    url, token = start(client)
    client.cookies.clear()
    response = client.post("/quiz/attempts", data={"csrf_token": token}, follow_redirects=False)
    assert response.status_code == 403 and "cookie" in Elements(response.text).text_of("data-error")


def test_an_attempt_opens_only_in_the_browser_that_started_it(client):
    url, _ = start(client)
    unknown = client.get("/quiz/attempts/no-such-attempt")
    other = TestClient(client.app)  # another browser on the same running app
    other_token = csrf_of(other.get("/quiz").text)
    elsewhere = other.get(url)
    question_id = question_ids(client.get(url).text)[0]
    posted = other.post(f"{url}/answers", data={"csrf_token": other_token, "question_id": question_id, "answer": "0"})
    finished = other.post(f"{url}/finish", data={"csrf_token": other_token, "name": "Eve"})
    assert {unknown.status_code, elsewhere.status_code, posted.status_code, finished.status_code} == {404}
    messages = {Elements(r.text).text_of("data-error") for r in (unknown, elsewhere, posted, finished)}
    assert len(messages) == 1
    assert "data-feedback" not in client.get(url).text


def test_the_attempt_page_has_a_fragment_for_htmx(client):
    url, _ = start(client)
    fragment = client.get(url, headers=HX)
    assert fragment.status_code == 200 and "<html" not in fragment.text and "data-question-id" in fragment.text


def test_starting_attempts_through_the_form_is_rate_limited(make_settings):
    with TestClient(create_app(make_settings(rate_limit_attempts="1/minute"))) as client:
        start(client)
        token = csrf_of(client.get("/quiz").text)
        refused = client.post("/quiz/attempts", data={"csrf_token": token}, follow_redirects=False)
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert "try again in" in Elements(refused.text).text_of("data-error")


def test_hostile_attempt_ids_get_a_404_page(client):
    for attempt_id in ("x" * 500, "%3Cscript%3Ealert(1)%3C%2Fscript%3E", "..%2F..%2Fetc", "%00"):
        response = client.get(f"/quiz/attempts/{attempt_id}")
        assert response.status_code == 404 and "<script>alert(1)" not in response.text


def test_answers_given_through_the_api_in_any_accepted_spelling_show_on_the_page(client):
    attempt_id, owner, questions = api_start(client)
    for question in questions:
        given = right_answer(question["id"])
        spelled = " ".join(map(str, given)) if isinstance(given, list) else f" {given} "
        response = client.post(f"/api/quiz/attempts/{attempt_id}/answers", headers=owner,
                               json={"question_id": question["id"], "answer": spelled})
        assert response.json()["correct"] is True
    # the same owner token, as a browser that the site gave it would send it
    client.cookies.set("quiz_owner", signed_owner(client.app.state.settings.load_signing_key(), owner[TOKEN_HEADER]))
    page = Elements(client.get(f"/quiz/attempts/{attempt_id}").text)
    assert [a["data-correct"] for a in page.having("data-feedback")] == ["true"] * 12
    assert len(page.having("data-picked")) >= sum(1 for q in questions if "choices" in q)
