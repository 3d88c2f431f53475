"""The quiz in Chromium: take it to a pass with instant feedback, open the certificate, print it on one page,
verify its ID through the form; axe on every page, and no horizontal scrolling on a 375 px phone."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from urllib.parse import unquote

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page, expect

from app.quiz import ChoiceQuestion, Question, load_bank, right_answer, shown_id
from app.quiz.draw import MAX_COUNT
from app.quiz.generators import GENERATORS, generate
from app.store.attempts import create_attempt
from app.store.database import create_database_engine, open_session
from app.web.platform.csrf import OWNER_COOKIE
from tests.helpers.quiz import learn_ids, stored_question

BANK = load_bank()
PHONE = {"width": 375, "height": 800}
PDF_PAGE = re.compile(rb"/Type\s*/Page(?!s)")


def answer_right(question: Locator) -> None:
    """Fill in the right answer, which the test knows by rebuilding the question from its stored id."""
    answer = right_answer(stored_question(str(question.get_attribute("data-question-id"))))
    if isinstance(answer, str):
        question.locator("input[name='answer']").fill(answer)
    else:
        for index in answer if isinstance(answer, list) else [answer]:
            question.locator(f"input[name='answer'][value='{index}']").check()
    question.get_by_role("button", name="Answer").click()


def start_attempt(page: Page, database_url: str) -> None:
    page.goto("/quiz")
    page.get_by_role("button", name="Start the quiz").click()
    expect(page).to_have_url(re.compile(r"/quiz/attempts/[\w-]+$"))
    learn_shown_ids(page, database_url)


def learn_shown_ids(page: Page, database_url: str) -> None:
    """Pair the ids the attempt page shows with the stored ids of its row in the server's database."""
    shown = page.locator("[data-question-id]").evaluate_all("all => all.map((q) => q.dataset.questionId)")
    learn_ids(database_url, page.url.rsplit("/", 1)[1], shown)


def no_horizontal_overflow(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def longest_run(question: Question) -> int:
    """The longest run of characters without a space in anything the question shows, before or after answering."""
    texts = [question.prompt, question.explanation, *(question.choices or ())]
    if isinstance(question, ChoiceQuestion):
        texts += [option.explanation for option in question.options]
    return max(len(word) for text in texts for word in text.split())


def every_kind_of_question() -> list[str]:
    """Every written question, and for each generator the three whose texts hold the longest unbroken runs."""
    generated: list[str] = []
    per_generator = (MAX_COUNT - len(BANK.questions)) // len(GENERATORS)
    for name in GENERATORS:
        rng = random.Random(name)
        candidates = {q.id: q for q in (generate(name, rng) for _ in range(200))}
        generated += sorted(candidates, key=lambda i: -longest_run(candidates[i]))[:per_generator]
    return [*BANK.questions, *generated]


def test_take_the_quiz_to_a_pass_and_verify_the_certificate(
    page: Page, axe_check: Callable[[Page], None], server_database_url: str
) -> None:
    page.goto("/quiz")
    axe_check(page)
    start_attempt(page, server_database_url)
    questions = page.locator("[data-question-id]")
    total = questions.count()
    assert total == 12
    for number in range(total):
        question_id = questions.nth(number).get_attribute("data-question-id")
        answer_right(questions.nth(number))
        feedback = page.locator(f"[data-question-id='{question_id}'] [data-feedback]")
        expect(feedback).to_have_attribute("data-correct", "true")
        expect(feedback.locator("[data-correct-answer]")).not_to_be_empty()
        if number == 0:
            expect(page.locator(f"[data-question-id='{question_id}'] .verdict")).to_be_focused()
            axe_check(page)
    expect(page.locator("[data-progress]")).to_have_text(re.compile(rf"Answered\s+{total}\s+of {total}"))
    assert page.locator("[data-answer-form]").count() == 0

    page.get_by_label("Name to print on your certificate").fill("Ada Lovelace")
    page.get_by_role("button", name="Finish and see my score").click()
    expect(page.locator("[data-score]")).to_have_text("12 of 12 right (100%)")
    page.locator("[data-certificate-link]").click()
    expect(page.locator("[data-name]")).to_have_text("Ada Lovelace")
    certificate_id = page.locator("[data-certificate-id]").inner_text()
    axe_check(page)

    page.emulate_media(media="print")
    assert len(PDF_PAGE.findall(page.pdf())) == 1
    page.emulate_media(media="screen")
    page.set_viewport_size(PHONE)
    assert no_horizontal_overflow(page)

    page.goto("/verify")
    page.get_by_label("Certificate ID").fill(certificate_id.lower().replace("-", ""))
    page.get_by_role("button", name="Verify").click()
    expect(page.locator("[data-status]")).to_have_text("Valid")
    expect(page.locator("[data-signature]")).to_contain_text("Signature checks")
    expect(page.locator("[data-name]")).to_have_text("Ada Lovelace")
    assert unquote(page.url).endswith(f"/verify/{certificate_id}")
    assert no_horizontal_overflow(page)
    axe_check(page)


def test_the_quiz_pages_fit_a_phone_and_feedback_arrives_without_reloading(
    page: Page, axe_check: Callable[[Page], None], server_database_url: str
) -> None:
    page.set_viewport_size(PHONE)
    page.goto("/quiz")
    assert no_horizontal_overflow(page)
    start_attempt(page, server_database_url)
    attempt_url = page.url
    first = page.locator("[data-question-id]").first
    answer_right(first)
    expect(first.locator("[data-feedback]")).to_be_visible()
    assert page.url == attempt_url  # htmx swapped the question in place
    assert no_horizontal_overflow(page)
    axe_check(page)


def test_every_question_fits_a_phone_before_and_after_it_is_answered(
    page: Page, server_url: str, server_database_url: str
) -> None:
    """Not just the questions a random draw happens to pick: an attempt holding every written question and the
    widest generated ones, answered one by one on a 375 px screen, never makes the page scroll sideways."""
    question_ids = every_kind_of_question()
    page.goto("/quiz")  # the browser gets its owner token from the site, signed, as any visitor does
    cookie = next(c["value"] for c in page.context.cookies() if c["name"] == OWNER_COOKIE)
    owner = cookie.rpartition(".")[0]
    engine = create_database_engine(server_database_url)
    with open_session(engine) as session:
        attempt_id = create_attempt(session, 0, question_ids, owner).id
    engine.dispose()
    page.set_viewport_size(PHONE)
    page.goto(f"/quiz/attempts/{attempt_id}")
    questions = page.locator("[data-question-id]")
    expect(questions).to_have_count(len(question_ids))
    learn_shown_ids(page, server_database_url)
    assert no_horizontal_overflow(page)
    for number, question_id in enumerate(question_ids):
        answer_right(questions.nth(number))
        expect(page.locator(f"[data-question-id='{shown_id(0, question_id)}'] [data-feedback]")).to_be_visible()
        assert no_horizontal_overflow(page), f"answering {question_id} made the page wider than the phone"


def test_the_empty_verify_page_has_no_accessibility_violation_of_any_impact(page: Page) -> None:
    page.goto("/verify")
    violations = Axe().run(page).response["violations"]
    assert not [v["id"] for v in violations], violations
