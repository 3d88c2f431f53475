"""The quiz and its certificates in Turkish, Greek and Yoruba: the bank's translations (checked against the
English, graded the same), an attempt's feedback and certificate in the language it was taken in, the date in
that language, and the Open Badges credential with the achievement in it (inLanguage), still valid and verifying."""

from __future__ import annotations

import html
import json
import re
import shutil
from datetime import UTC, datetime
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import jsonschema_rs
import pytest
from babel.dates import format_date

from app.quiz import BANK_DIR, BankError, ChoiceQuestion, Numeric, grade, load_bank, right_answer
from app.quiz.credential import verify_credential_jwt
from app.web.platform.languages import LANGUAGES as SERVED
from app.web.quiz.certificates import NO_SUCH_CERTIFICATE
from tests.helpers.html import Elements
from tests.helpers.quiz import form_value, learn_ids, question_ids, stored_question, wrong_answer
from tests.helpers.quiz import right_answer as right_answer_of
from tests.helpers.visible_text import english_left

BANK = load_bank()
LANGUAGES = ("tr", "el", "yo")
SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "reference" /
                     "ob_v3p0_achievementcredential_schema.json").read_text(encoding="utf-8"))
ATTEMPT = re.compile(r"(?:/(?P<code>tr|el|yo))?/quiz/attempts/(?P<id>[\w-]+)")


def _csrf(html: str) -> str:
    return next(a["value"] for a in Elements(html).having("name") if a["name"] == "csrf_token")


def _start(client, code: str) -> tuple[str, str]:
    prefix = f"/{code}" if code else ""  # "" for English
    token = _csrf(client.get(f"{prefix}/quiz").text)
    response = client.post(f"{prefix}/quiz/attempts", data={"csrf_token": token}, follow_redirects=False)
    url = response.headers["location"]
    made = ATTEMPT.fullmatch(url)
    assert response.status_code == 303 and made and (made["code"] or "") == code, url
    learn_ids(client.app.state.engine, ATTEMPT.fullmatch(url)["id"], question_ids(client.get(url).text))
    return url, token


def _answer(client, url: str, token: str, question_id: str, value: object):
    data = {"csrf_token": token, "question_id": question_id, "answer": form_value(value)}
    return client.post(f"{url}/answers", data=data, follow_redirects=False)


def _pass(client, code: str, name: str = "Ada Lovelace") -> tuple[str, str]:
    """An attempt taken on pages in `code`, every answer right: its URL and its certificate's link."""
    url, token = _start(client, code)
    for question_id in question_ids(client.get(url).text):
        assert _answer(client, url, token, question_id, right_answer_of(question_id)).status_code == 303
    finished = client.post(f"{url}/finish", data={"csrf_token": token, "name": name}, follow_redirects=False)
    assert finished.status_code == 303
    link = next(a["href"] for a in Elements(client.get(url).text).having("data-certificate-link"))
    assert link.startswith(f"/{code}/certificates/")
    return url, link


def _written(html: str) -> list[str]:
    return [question_id for question_id in question_ids(html) if question_id in BANK.questions]


# -- the bank's translations ----------------------------------------------------------------------------------


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_bank_is_translated_completely_and_checked_against_the_english(code):
    assert code in BANK.translations
    assert BANK.missing_in(code) == []
    translation = BANK.translations[code]
    assert set(translation.questions) == set(BANK.questions)
    for topic in BANK.topics:
        assert translation.titles[topic.id] != topic.title


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_translated_question_is_graded_exactly_as_the_english(code):
    for english in BANK.questions.values():
        translated, language = BANK.question_in(english, code)
        assert language == code and translated.id == english.id and translated.type == english.type
        assert translated.prompt != english.prompt
        if isinstance(english, ChoiceQuestion):
            assert isinstance(translated, ChoiceQuestion)
            assert translated.answers == english.answers and len(translated.options) == len(english.options)
            # The choices are in the same order: a choice that is a number or a format stays as it is, but for the
            # decimal comma of a language that writes one (docs/translating.md: numbers in running text)
            comma = next(language for language in SERVED if language.code == code).decimal_comma
            for mine, theirs in zip(translated.options, english.options, strict=True):
                if re.fullmatch(r"[\d.e+−\-^×≈= /()]+|[A-Z0-9]+", theirs.text):
                    assert (mine.text.replace(",", ".") if comma else mine.text) == theirs.text, english.id
        else:
            assert right_answer(translated) == right_answer(english)
        right, wrong = right_answer(english), _wrong(english)
        assert grade(translated, right).correct and grade(english, right).correct
        assert grade(translated, wrong).correct is grade(english, wrong).correct is False
        assert grade(translated, right).correct_answer != "" and grade(translated, right).explanation


def _wrong(question):
    if isinstance(question, ChoiceQuestion):
        others = sorted(set(range(len(question.options))) - question.answers)
        return others[0] if question.type == "single" else others
    if question.type == "numeric":
        return str(question.answer * 3 + 1000)
    return hex(question.answer ^ 1)


def _bank_with(tmp_path: Path, topic: str, edit) -> Path:
    shutil.copytree(BANK_DIR, tmp_path / "quiz")
    path = tmp_path / "quiz" / "tr" / f"{topic}.txt"
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return tmp_path / "quiz"


@pytest.mark.parametrize(("edit", "says"), [
    (lambda text: text.replace("id: fp16-max\ntype: single", "id: fp16-biggest\ntype: single"), "has no question"),
    (lambda text: text.replace("answer: A\n", "answer: B\n", 1), "'answer:' differs from the English"),
    (lambda text: text.replace("choice: 32767\n", "", 1).replace(
        "explain: Bu, 16 bitlik bir tamsayı olan INT16'nın en büyük değeridir, en büyük FP16 değeri değil.\n", ""),
     "has 4 choices"),
    (lambda text: text.replace("figures: 3\n", "", 1), "'figures:' differs"),
])
def test_a_translation_that_differs_from_the_english_is_refused_with_its_file(tmp_path, edit, says):
    with pytest.raises(BankError, match=says) as refused:
        load_bank(_bank_with(tmp_path, "fp16_vs_bf16", edit))
    assert refused.value.file == "tr/fp16_vs_bf16.txt"


def test_a_missing_translation_falls_back_to_english_said_to_be_english(tmp_path, client):
    directory = _bank_with(tmp_path, "fp16_vs_bf16",
                           lambda text: re.sub(r"\nid: bf16-max\n.*?\n\n", "\n", text, flags=re.DOTALL))
    bank = load_bank(directory)
    assert "bf16-max" in bank.missing_in("tr")
    assert bank.question_in(bank.questions["bf16-max"], "tr") == (bank.questions["bf16-max"], "en")
    client.app.state.quiz_bank = bank
    url, _ = _start(client, "tr")
    page = client.get(url)
    assert page.status_code == 200
    for attrs in Elements(page.text).having("data-question-id"):
        prompt_lang = re.search(r'id="q\d+-prompt"(?: lang="(\w+)")?>', page.text[page.text.index(
            f'data-question-id="{attrs["data-question-id"]}"'):])
        assert prompt_lang is not None
        # the generated questions: tests/web/quiz/test_i18n_quiz_generated.py
        english = attrs["data-question-id"] == "bf16-max"
        assert prompt_lang[1] == ("en" if english else None)


# -- an attempt on Turkish pages --------------------------------------------------------------------------------


def test_a_turkish_attempt_gets_turkish_questions_feedback_and_certificate(client):
    url, token = _start(client, "tr")
    page = client.get(url).text
    assert '<main id="main" tabindex="-1" lang="tr">' in page and "Sınav:" in page
    written = _written(page)
    assert written
    for question_id in written:
        assert BANK.translations["tr"].questions[question_id].prompt in html.unescape(page)
    wrongly = written[0]
    response = _answer(client, url, token, wrongly, wrong_answer(wrongly))
    assert response.status_code == 303
    page = client.get(url).text
    feedback = Elements(page).text_of("data-feedback")
    assert "Tam değil." in feedback and "Doğru cevap:" in feedback
    assert BANK.translations["tr"].questions[wrongly].explanation[:40] in html.unescape(feedback)
    # The same attempt graded as the English page would: the verdict is the stored one.
    assert 'data-correct="false"' in page
    for question_id in question_ids(page):
        if question_id != wrongly:
            _answer(client, url, token, question_id, right_answer_of(question_id))
    client.post(f"{url}/finish", data={"csrf_token": token, "name": "Ayşe Işık"})
    result = client.get(url).text
    assert "Geçtiniz." in result and "12 sorudan 11 doğru (%92)" in result
    link = next(a["href"] for a in Elements(result).having("data-certificate-link"))
    certificate = client.get(link)
    assert certificate.status_code == 200 and certificate.headers["content-language"] == "tr"
    text = certificate.text
    assert "Bu belge şunu onaylar:" in text and "Ayşe Işık" in text and "Sayı formatları ve karışık kesinlik" in text
    assert format_date(datetime.now(UTC), "d MMMM y", locale="tr") in text


def test_turkish_feedback_words_the_cores_sentences_in_turkish(client):
    url, token = _start(client, "tr")
    choice = next(q for q in _written(client.get(url).text) if isinstance(stored_question(q), ChoiceQuestion))
    _answer(client, url, token, choice, wrong_answer(choice))
    feedback = Elements(client.get(url).text).text_of("data-feedback")
    assert "seçtiniz:" in feedback and "You chose" not in feedback


def test_a_refused_answer_on_a_turkish_page_says_so_in_turkish(client):
    url, token = _start(client, "tr")
    response = _answer(client, url, token, question_ids(client.get(url).text)[0], "")
    assert response.status_code == 422
    assert "Önce bir cevap verin" in response.text



def _numeric_question(client, code: str) -> tuple[str, str, str, str]:
    """An attempt on pages in `code` with a numeric question: its URL, token, the question and its right answer."""
    for _ in range(20):  # an attempt draws its questions; most hold a numeric one
        url, token = _start(client, code)
        for question_id in question_ids(client.get(url).text):
            if isinstance(stored_question(question_id), Numeric):
                return url, token, question_id, str(right_answer_of(question_id))
    raise AssertionError("no numeric question in 20 attempts")


def _with_a_decimal_comma(answer: str) -> str:
    """The answer (0.375, 3/8, 65504) as a decimal with a comma, as Turkish and Greek write it: 0,375, 65504,0."""
    value = Fraction(answer)
    with localcontext(prec=2000):  # exact: the answers terminate (BF16's max has 39 digits, past the default 28)
        text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
    assert Fraction(text) == value, answer
    return text.replace(".", ",") if "." in text else text + ",0"


@pytest.mark.parametrize("code", ["tr", "el"])
def test_a_numeric_answer_with_a_decimal_comma_is_read_on_a_comma_page(client, code):
    url, token, question_id, right = _numeric_question(client, code)
    comma = _with_a_decimal_comma(right)
    assert _answer(client, url, token, question_id, comma).status_code == 303
    assert 'data-correct="true"' in client.get(url).text


def test_a_decimal_comma_is_no_number_on_an_english_page(client):
    url, token, question_id, right = _numeric_question(client, "")
    comma = _with_a_decimal_comma(right)
    assert _answer(client, url, token, question_id, comma).status_code == 422

# -- certificates -------------------------------------------------------------------------------------------------


def test_a_greek_certificate_shows_the_date_in_greek_on_the_page_and_its_printed_version(client):
    _, link = _pass(client, "el")
    page = client.get(link).text
    day = format_date(datetime.now(UTC), "d MMMM y", locale="el")
    assert re.fullmatch(r"\d{1,2} \w+ \d{4}", day) and not re.search(r"[A-Za-z]", day)  # 14 Μαρτίου 2026
    assert f">{day}</time>" in page and "Πιστοποιείται ότι" in page and 'lang="el"' in page
    # The printed version is the same page (print styles); no CSS changes the case of translated text.
    css = (Path(__file__).resolve().parents[3] / "static" / "css" / "quiz.css").read_text(encoding="utf-8")
    assert "uppercase" not in css
    verify = client.get(link.replace("/certificates/", "/verify/")).text
    assert f">{day}</time>" in verify and "Έγκυρο" in verify


def test_an_english_certificate_keeps_its_english_date(client):
    url, link = _pass(client, "tr")
    english = client.get(link.removeprefix("/tr")).text
    assert format_date(datetime.now(UTC), "d MMMM y", locale="en") in english and "This certifies that" in english


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_credential_carries_the_achievement_in_the_attempts_language_and_verifies(client, code):
    _, link = _pass(client, code)
    certificate_id = link.rsplit("/", 1)[1]
    token = client.get(f"/certificates/{certificate_id}/credential.jwt").text  # any prefix: the attempt's language
    claims = verify_credential_jwt(token, client.get("/.well-known/jwks.json").json())
    achievement = claims["credentialSubject"]["achievement"]
    assert achievement["inLanguage"] == code
    assert achievement["name"] == BANK_QUIZ_NAME[code] and "FP64" in achievement["description"]
    assert "A quiz on" not in achievement["description"]
    body = {name: value for name, value in claims.items() if name not in ("iss", "jti", "sub", "nbf", "iat")}
    assert not [error.message for error in jsonschema_rs.validator_for(SCHEMA).iter_errors(body)]
    document = client.get(f"/tr/certificates/{certificate_id}/credential.json").json()
    assert document["credentialSubject"]["achievement"]["inLanguage"] == code
    assert not [error.message for error in jsonschema_rs.validator_for(SCHEMA).iter_errors(document)]


BANK_QUIZ_NAME = {"tr": "Sayı formatları ve karışık kesinlik", "el": "Μορφές αριθμών και μικτή ακρίβεια",
                  "yo": "Àwọn ọ̀nà kíkà nọ́ńbà àti Adalu konge"}


def test_the_data_integrity_proof_of_a_translated_credential_verifies(client):
    from openbadgeslib.ob3.ldp import OB3LdpVerifier

    from tests.helpers.quiz import public_key_pem

    _, link = _pass(client, "yo")
    document = client.get(f"/certificates/{link.rsplit('/', 1)[1]}/credential.json").json()
    assert OB3LdpVerifier(pubkey_pem=public_key_pem(client)).verify(document).issuer is not None


def test_an_attempt_through_the_api_stays_english(client):
    from tests.helpers.quiz import take_attempt

    result = take_attempt(client)
    token = client.get(f"/certificates/{result['certificate_id']}/credential.jwt").text
    claims = verify_credential_jwt(token, client.get("/.well-known/jwks.json").json())
    assert claims["credentialSubject"]["achievement"]["inLanguage"] == "en"
    assert claims["description"].startswith("Answered 12 of 12")


def test_the_verify_pages_refusal_is_the_services_sentence_translated():
    from app.quiz import EXAMPLE_ID
    from app.services.certificates import NoSuchCertificate

    assert str(NoSuchCertificate()) == NO_SUCH_CERTIFICATE % {"example": EXAMPLE_ID}


# -- no English left -----------------------------------------------------------------------------------------


def _main(html: str) -> str:
    return html[html.index("<main"):html.index("</main>")]


# Choices that are code (softmax, conv2d), the holder's name, the verification URL and the certificate ID.
# Code the bank's choices and answers are written in (softmax; layer_norm, x == float("nan"), x > 0 or x <= 0), the
# holder's name, addresses and certificate IDs
CODE_OR_NAME = re.compile(r"[a-z][a-z0-9_]*(; [a-z][a-z0-9_]*)*|x [!=<>]=? \S+( or x [!=<>]=? \S+)?|Ada Lovelace"
                          r"|https?://\S+|[0-9A-Z]{4}(-[0-9A-Z~*$=]{1,4}){4}")


def _left(translated: str, english: str, code: str) -> list[str]:
    """english_left, less code identifiers (the choices softmax, conv2d), the holder's name and the certificate ID."""
    return [text for text in english_left(_main(translated), _main(english), code) if not CODE_OR_NAME.fullmatch(text)]


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_quiz_pages_in_a_language_have_none_of_the_english_sentences(client, code):
    english_url, english_token = _start(client, "tr")
    english_url = english_url.removeprefix("/tr")
    url, token = _start(client, code)
    for page_url, page_token in ((url, token), (english_url, english_token)):
        ids = question_ids(client.get(page_url).text)
        for question_id in ids[: len(ids) // 2]:
            _answer(client, page_url, page_token, question_id, wrong_answer(question_id))
    pairs = [(f"/{code}/quiz", "/quiz"), (url, english_url), (f"/{code}/verify", "/verify"),
             (f"/{code}/verify?id=AAAA", "/verify?id=AAAA")]
    for translated, english in pairs:
        page = client.get(translated).text
        assert f'lang="{code}"' in page
        assert _left(page, client.get(english).text, code) == [], translated
    _, link = _pass(client, code)
    page = client.get(link).text
    assert _left(page, client.get(link.removeprefix(f"/{code}")).text, code) == []


def test_links_on_a_translated_quiz_page_keep_the_language(client):
    url, _ = _start(client, "el")
    for path in (url, "/el/quiz", "/el/verify"):
        page = client.get(path).text
        main = _main(page)
        hrefs = re.findall(r'(?:href|action|data-hx-post)="(/[^"]*)"', main)
        assert hrefs
        for href in hrefs:
            assert href.startswith("/el/") or href.startswith("/.well-known/") or "/credential." in href, href


def test_generated_questions_are_in_the_pages_language_on_a_translated_page(client):
    url, _ = _start(client, "tr")
    page = client.get(url).text
    generated = [q for q in question_ids(page) if q.startswith("gen-")]
    assert generated
    prompts = re.findall(r'class="prompt" id="q\d+-prompt"( lang="en")?>', page)
    assert len(prompts) == len(question_ids(page)) and not any(prompts)
    assert 'lang="en"' not in _main(page)
