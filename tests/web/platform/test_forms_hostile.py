"""Every HTML form of the site with hostile input in every field, as a whole page and as an htmx request.

The forms are found, not listed: the test crawls the site from its home page (and the pages only a flow reaches: a
quiz attempt, a certificate, a verification), parses each <form> with html.parser, and submits it once per field and
hostile text with that field replaced. No answer may be a 5xx; a 4xx says why in a sentence; no page reflects
markup unescaped; and a quiz attempt fuzzed this way still renders, scores its first answers and finishes.
A last test reads every template and fails when a form appears that the crawl never reached.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urljoin, urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.formats import FORMATS
from app.main import create_app
from app.quiz.signing import new_seed_text
from app.settings import Settings
from app.store.database import migrate
from tests.helpers.html import HX, Elements
from tests.helpers.quiz import form_value, learn_ids, question_ids, right_answer, verdicts
from tests.helpers.refusals import is_sentence
from tests.hostile_inputs import HOSTILE_TEXTS, INJECTIONS, NASTIEST

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
MODES = {"page": {}, "htmx": HX}
UNLIMITED = "1000000/minute"
# Where the crawl starts: the home page links to everything a visitor can reach; the embeds are linked only from
# their pages' share snippets.
SEEDS = ("/", "/quiz", "/verify", "/embed/visualise/float16", "/embed/compare", "/embed/train")
_NOT_PAGES = ("/static/", "/openapi.json", "/api/", "/.well-known/", "/oembed", "/metrics")


class Control(NamedTuple):
    name: str
    kind: str  # the input's type, or select / textarea / submit
    value: str
    sent: bool  # whether a browser sends it when the form is submitted untouched


@dataclass
class Form:
    page: str
    action: str
    method: str
    css_class: str
    controls: list[Control] = field(default_factory=list)

    def names(self) -> list[str]:
        return list(dict.fromkeys(control.name for control in self.controls))

    def with_value(self, name: str, text: str) -> dict[str, list[str]]:
        """What a browser sends untouched, with every value of `name` replaced by text."""
        data: dict[str, list[str]] = {}
        for control in self.controls:
            if control.sent and control.name != name:
                data.setdefault(control.name, []).append(control.value)
        data[name] = [text]
        return data

    def kind(self) -> tuple[object, ...]:
        """Forms of one kind take the same fields to the same route: one of each is enough to submit."""
        route = "/".join(FORMATS[part].kind if part in FORMATS else part for part in self.action.split("/"))
        route = re.sub(r"/quiz/attempts/[^/]+/", "/quiz/attempts/{id}/", route)
        return self.css_class, self.method, route, tuple((control.name, control.kind) for control in self.controls)


def forms_of(page: str, html: str) -> list[Form]:
    """The forms of one page, with each named control and the value a browser would send."""
    elements = Elements(html)
    forms = []
    for at, (tag, attrs) in enumerate(elements.tags):
        if tag == "form":
            action = urljoin(page, attrs.get("action") or page)
            form = Form(page, urlsplit(action).path, attrs.get("method", "get").lower(), attrs.get("class", ""))
            for inner in elements.inside(at):
                _add_control(form, elements, inner)
            forms.append(form)
    return forms


def _add_control(form: Form, elements: Elements, at: int) -> None:
    """The element at `at` as a control of the form, when it is one a browser sends: named, not disabled."""
    tag, given = elements.tags[at]
    if "name" not in given or "disabled" in given:
        return
    if tag == "select":
        options = [elements.tags[i][1] for i in elements.inside(at) if elements.tags[i][0] == "option"]
        chosen = next((option.get("value", "") for option in options if "selected" in option),
                      options[0].get("value", "") if options else "")
        form.controls.append(Control(given["name"], "select", chosen, True))
    elif tag == "textarea":
        form.controls.append(Control(given["name"], "textarea", elements.texts[at], True))
    elif tag in ("input", "button"):
        _add_input(form, tag, given)


def _add_input(form: Form, tag: str, given: dict[str, str]) -> None:
    kind = given.get("type", "text" if tag == "input" else "submit").lower()
    if kind in ("button", "reset"):
        return
    if kind == "submit":
        # The first submit button is the one pressing Enter or the button clicks.
        sent = not any(control.kind == "submit" for control in form.controls)
    else:
        sent = kind not in ("checkbox", "radio") or "checked" in given
    default = "on" if kind in ("checkbox", "radio") else ""
    form.controls.append(Control(given["name"], kind, given.get("value", default), sent))


def submit(client: TestClient, form: Form, data: dict[str, list[str]], headers: dict[str, str]) -> httpx.Response:
    if form.method == "post":
        return client.post(form.action, data=data, headers=headers, follow_redirects=False)
    return client.get(form.action, params=data, headers=headers, follow_redirects=False)


def problems_with(response: httpx.Response, text: str) -> list[str]:
    """What is wrong with the answer to a hostile submission; empty when nothing is."""
    found = []
    if response.status_code >= 500:
        found.append(f"answered {response.status_code}")
    elif response.status_code >= 400:
        if response.headers["content-type"].startswith("application/json"):
            sentence = response.json().get("detail")
        else:
            errors = [Elements(response.text).text_of("data-error")] if "data-error" in response.text else []
            sentence = errors[0] if errors else None
        if not is_sentence(sentence):
            found.append(f"answered {response.status_code} without a sentence saying why")
    elif response.is_redirect and not response.headers["location"].startswith("/"):
        found.append(f"redirected off the site to {response.headers['location'][:80]}")
    if text in INJECTIONS and text in response.text:
        found.append("reflected markup unescaped")
    if any("injected" in value for value in response.headers.values()):
        found.append("let a value into a response header")
    return found


def fuzz(client: TestClient, form: Form, texts: tuple[str, ...]) -> Iterator[str]:
    """Submit form with each field in turn set to each text, as a page and as htmx; yield what went wrong."""
    for name in form.names():
        for text in texts:
            for mode, headers in MODES.items():
                response = submit(client, form, form.with_value(name, text), headers)
                for problem in problems_with(response, text):
                    where = f"{form.method.upper()} {form.action} (from {form.page})"
                    yield f"{where} {name}={text[:30]!r} {mode}: {problem}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app for the module, without rate limits (the module sends thousands of requests from one address)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('forms') / 'precision_lab.db'}"
    migrate(url)
    settings = Settings(
        environment="test", database_url=url, signing_key=SecretStr(new_seed_text()),
        rate_limit_attempts=UNLIMITED, rate_limit_verify=UNLIMITED, rate_limit_train=UNLIMITED,
        rate_limit_passes=UNLIMITED,
    )
    with TestClient(create_app(settings)) as client:
        yield client


def crawl(client: TestClient, seeds: tuple[str, ...]) -> list[Form]:
    """The forms of every page reachable from the seeds by links, visiting one URL per path."""
    visited: set[str] = set()
    forms: list[Form] = []
    queue = list(seeds)
    while queue:
        url = queue.pop(0)
        path = urlsplit(url).path
        if path in visited or path.startswith(_NOT_PAGES) or path.endswith((".json", ".jwt")):
            continue
        visited.add(path)
        response = client.get(url)
        assert response.status_code == 200, f"{url} answered {response.status_code}"
        forms += forms_of(url, response.text)
        queue += [attrs["href"] for tag, attrs in Elements(response.text).tags
                  if tag == "a" and attrs.get("href", "").startswith("/")]
    return forms


def one_of_each_kind(forms: list[Form]) -> list[Form]:
    kinds: dict[tuple[object, ...], Form] = {}
    for form in forms:
        kinds.setdefault(form.kind(), form)
    return list(kinds.values())


def start_attempt(client: TestClient) -> str:
    """Start an attempt through the form on /quiz, as a browser does: the attempt page's path."""
    (start,) = forms_of("/quiz", client.get("/quiz").text)
    response = submit(client, start, start.with_value("csrf_token", start.controls[0].value), {})
    assert response.status_code == 303, response.text[:300]
    page = response.headers["location"]
    shown = [attrs["data-question-id"] for attrs in Elements(client.get(page).text).having("data-question-id")]
    learn_ids(client.app.state.engine, page.rsplit("/", 1)[1], shown)
    return page


def answer_forms(page: str, html: str) -> dict[str, Form]:
    """The open answer forms of an attempt page, by question id."""
    return {next(c.value for c in form.controls if c.name == "question_id"): form
            for form in forms_of(page, html) if form.action.endswith("/answers")}


def answered(form: Form, answer: object) -> dict[str, list[str]]:
    """The answer form's data with an API-style answer, as its radio buttons, boxes or text field send it."""
    value = form_value(answer)
    data = form.with_value("answer", "")
    data["answer"] = value if isinstance(value, list) else [value]
    return data


def passed_certificate(client: TestClient) -> str:
    """The ID of a certificate earned through the pages: every question answered right, then finished."""
    page = start_attempt(client)
    for question_id, form in answer_forms(page, client.get(page).text).items():
        assert submit(client, form, answered(form, right_answer(question_id)), {}).status_code == 303
    (finish,) = forms_of(page, client.get(page).text)
    assert submit(client, finish, finish.with_value("name", "Ada Lovelace"), {}).status_code == 303
    link = next(attrs["href"] for attrs in Elements(client.get(page).text).having("data-certificate-link"))
    return link.rsplit("/", 1)[-1]


@pytest.fixture(scope="module")
def site_forms(site: TestClient) -> list[Form]:
    """One form of each kind on the crawled pages, a certificate page and a verification result."""
    certificate_id = passed_certificate(site)
    seeds = (*SEEDS, f"/certificates/{certificate_id}", f"/verify/{certificate_id}")
    return one_of_each_kind(crawl(site, seeds))


def forms_for(forms: list[Form], text: str) -> list[Form]:
    """The forms this text goes into: the first of each family (same controls) always, its variants (an embed,
    another kind of format) only for the nastiest texts, to keep the number of requests down."""
    families: set[tuple[object, ...]] = set()
    chosen = []
    for form in forms:
        family = (form.css_class, form.method, tuple(control.name for control in form.controls))
        if family not in families or text in NASTIEST:
            chosen.append(form)
        families.add(family)
    return chosen


@pytest.mark.slow  # submits every form of the site with each hostile text
@pytest.mark.parametrize("text", HOSTILE_TEXTS, ids=lambda text: ascii(text[:12]))
def test_every_form_of_every_page_takes_hostile_input_safely(site: TestClient, site_forms: list[Form], text: str):
    problems = [problem for form in forms_for(site_forms, text) for problem in fuzz(site, form, (text,))]
    assert not problems


def answer_kind(form: Form) -> str:
    """How an answer form takes its answer: radio buttons, checkboxes or a text field."""
    return next(control.kind for control in form.controls if control.name == "answer")


def attempts_with_every_answer_kind(client: TestClient) -> dict[str, tuple[str, Form]]:
    """An answer form of each kind, with the attempt page it is on: attempts are started until the draws hold all."""
    found: dict[str, tuple[str, Form]] = {}
    for _ in range(20):
        page = start_attempt(client)
        for form in answer_forms(page, client.get(page).text).values():
            found.setdefault(answer_kind(form), (page, form))
        if len(found) == 3:
            return found
    raise AssertionError(f"20 attempts drew answer forms of the kinds {sorted(found)} only")


@pytest.mark.slow  # takes quiz attempts with every hostile text
def test_fuzzed_quiz_attempts_keep_their_first_answers_and_finish(site: TestClient):
    fuzzed = attempts_with_every_answer_kind(site)
    assert not [problem for _, form in fuzzed.values() for problem in fuzz(site, form, HOSTILE_TEXTS)]
    for page in dict.fromkeys(page for page, _ in fuzzed.values()):
        check_attempt_survives(site, page, [form for on, form in fuzzed.values() if on == page])


def check_attempt_survives(client: TestClient, page: str, fuzzed: list[Form]) -> None:
    """After hostile answers: the attempt renders, keeps each first verdict, takes the rest, finishes once."""
    html = client.get(page).text
    questions = question_ids(html)
    assert len(questions) == 12
    # Hostile text that reads as an answer was graded (wrong) and locked; the rest left its question open.
    locked = verdicts(html)
    open_forms = answer_forms(page, html)
    assert list(open_forms) == [q for q in questions if q not in locked]
    for form in fuzzed:  # a locked question refuses even its right answer now
        question_id = form.with_value("answer", "")["question_id"][0]
        refused = client_answers(client, form, question_id)
        assert refused.status_code == 303 if question_id in open_forms else 400 <= refused.status_code < 500
    open_forms = answer_forms(page, client.get(page).text)
    for question_id, form in open_forms.items():
        assert client_answers(client, form, question_id).status_code == 303
    html = client.get(page).text
    assert verdicts(html) == {q: locked.get(q, "true") for q in questions}

    (finish,) = forms_of(page, html)
    assert not list(fuzz(client, finish, HOSTILE_TEXTS))
    result = client.get(page)
    assert result.status_code == 200 and question_ids(result.text) == questions
    score = list(verdicts(result.text).values()).count("true")
    assert Elements(result.text).text_of("data-score").startswith(f"{score} of 12 right")
    links = [attrs["href"] for attrs in Elements(result.text).having("data-certificate-link")]
    assert bool(links) == (score / 12 >= 0.8) and len(links) <= 1
    for link in links:  # the first hostile name a certificate accepts is printed escaped, and signed
        certificate = client.get(link)
        assert certificate.status_code == 200 and not any(text in certificate.text for text in INJECTIONS)
        verified = client.get(f"/api/certificates/{link.rsplit('/', 1)[-1]}").json()
        assert verified["signature_valid"] is True and verified["score"] == score
    again = submit(client, finish, finish.with_value("name", "Ada Lovelace"), {})
    assert again.status_code < 500 and client.get(page).text == result.text


def client_answers(client: TestClient, form: Form, question_id: str) -> httpx.Response:
    return submit(client, form, answered(form, right_answer(question_id)), {})


def template_forms(text: str) -> list[tuple[str, str]]:
    """The class and action of every <form> written in a template (Jinja expressions left in place)."""
    return [(given.get("class", ""), given.get("action", "")) for tag, given in Elements(text).tags if tag == "form"]


_URL_CALL = re.compile(r"\{\{\s*url\('([^']*)'\)\s*\}\}")  # {{ url('/learn/quantisation#live') }}
_LANGUAGE = "\x00"  # where url() puts the page's language prefix (/tr), or nothing in English


def _action_pattern(action: str) -> re.Pattern[str]:
    """A template's action as a pattern: url('/path') matches the path in any language, each other Jinja expression
    whatever it renders to; the fragment is left out."""
    action = _URL_CALL.sub(lambda call: _LANGUAGE + call[1], action).split("#")[0]
    pattern = ".*".join(re.escape(part) for part in re.split(r"\{\{.*?\}\}", action))
    return re.compile(pattern.replace(re.escape(_LANGUAGE), "(?:/[a-z]{2})?"))


@pytest.mark.slow  # 9.5 s: the crawl of every page for its forms (the site_forms fixture) comes first
def test_no_form_in_any_template_escapes_the_crawl(site: TestClient, site_forms: list[Form]):
    page = start_attempt(site)
    reached = site_forms + one_of_each_kind(forms_of(page, site.get(page).text))
    written = [(path.relative_to(TEMPLATES), css_class, action)
               for path in sorted(TEMPLATES.rglob("*.html"))
               for css_class, action in template_forms(path.read_text(encoding="utf-8"))]
    assert len(written) >= 9
    escaped = [(str(path), css_class, action) for path, css_class, action in written
               if not any(form.css_class == css_class and _action_pattern(action).fullmatch(form.action)
                          for form in reached)]
    assert not escaped, "forms the crawl never reached, so never submitted with hostile input"


def test_the_checks_catch_a_server_error_a_bare_refusal_and_reflected_markup():
    def answer(status: int, html: str, **headers: str) -> httpx.Response:
        return httpx.Response(status, text=html, headers={"content-type": "text/html", **headers},
                              request=httpx.Request("GET", "http://testserver/"))

    script = INJECTIONS[0]
    assert problems_with(answer(500, "<p>Internal Server Error</p>"), "x")
    assert problems_with(answer(422, "<p>Unprocessable</p>"), "x")
    assert problems_with(answer(200, f"<input value={script}>"), script)
    assert problems_with(answer(303, "", location="https://elsewhere.example/"), "x")
    assert problems_with(answer(200, "", **{"set-cookie": "injected=1"}), "x")
    assert not problems_with(answer(422, "<p data-error>The value is not a number.</p>"), script)
    assert not problems_with(answer(200, "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"), script)
