"""The generated questions in Turkish, Greek and Yoruba: their prompts, choices and explanations are the core's
messages (app/quiz/generators.py), worded through the catalogs by app/web/quiz/localised.py. On a translated
attempt page they are in the page's language (no lang="en"), graded exactly as the English ones, and their English
text (the API's, and what stored attempts were shown) is what it always was."""

from __future__ import annotations

import dataclasses
import html
import random
import re

import pytest
from babel.support import NullTranslations

from app.quiz import GENERATORS, ChoiceQuestion, grade, load_bank, right_answer
from app.quiz.generators import generated_question
from app.web.platform.languages import SERVED, speaking
from app.web.quiz import localised
from app.web.quiz.localised import question_in_page_language
from tests.helpers.html import Elements
from tests.helpers.quiz import form_value, learn_ids, question_ids, stored_question, verdicts, wrong_answer
from tests.helpers.quiz import right_answer as right_answer_of

BANK = load_bank()
LANGUAGES = ("tr", "el", "yo")
ATTEMPT = re.compile(r"(?:/(?P<code>tr|el|yo))?/quiz/attempts/(?P<id>[\w-]+)")


def _start(client, code: str) -> tuple[str, str]:
    prefix = f"/{code}" if code else ""
    page = client.get(f"{prefix}/quiz").text
    token = next(a["value"] for a in Elements(page).having("name") if a["name"] == "csrf_token")
    response = client.post(f"{prefix}/quiz/attempts", data={"csrf_token": token}, follow_redirects=False)
    url = response.headers["location"]
    made = ATTEMPT.fullmatch(url)
    assert response.status_code == 303 and made, url
    learn_ids(client.app.state.engine, made["id"], question_ids(client.get(url).text))
    return url, token


def _answer(client, url: str, token: str, question_id: str, value: object):
    data = {"csrf_token": token, "question_id": question_id, "answer": form_value(value)}
    return client.post(f"{url}/answers", data=data, follow_redirects=False)


def _block(page: str, question_id: str) -> str:
    """The <li> of one question on an attempt page."""
    start = page.index(f'data-question-id="{question_id}"')
    end = page.find('<li class="question"', start)
    return page[start : end if end != -1 else len(page)]


def _worded(question, code: str):
    with speaking(SERVED[code]):
        return question_in_page_language(BANK, question)


def _samples(count: int = 12) -> list:
    """Questions of every generator, the retired `max` too."""
    rng = random.Random(13)
    questions = [generator.build(*generator.sample(rng)) for generator in GENERATORS.values() for _ in range(count)]
    return list({question.id: question for question in questions}.values())


# -- on the attempt page ------------------------------------------------------------------------------------------


def test_a_turkish_attempt_shows_its_generated_questions_in_turkish(client):
    url, token = _start(client, "tr")
    page = client.get(url).text
    generated = [question_id for question_id in question_ids(page) if question_id.startswith("gen-")]
    assert generated
    for question_id in generated:
        english = stored_question(question_id)
        turkish, language = _worded(english, "tr")
        block = _block(page, question_id)
        assert language == "tr" and 'lang="en"' not in block
        assert turkish.prompt in html.unescape(block) and english.prompt not in html.unescape(block)
        if isinstance(english, ChoiceQuestion):
            for option in turkish.options:
                assert option.text in html.unescape(block)
    # Answered wrongly: the feedback is Turkish too, the explanation worded from the same messages.
    for question_id in generated:
        assert _answer(client, url, token, question_id, wrong_answer(question_id)).status_code == 303
    page = client.get(url).text
    for question_id in generated:
        block = _block(page, question_id)
        turkish, _ = _worded(stored_question(question_id), "tr")
        feedback = Elements(block).text_of("data-feedback")
        assert "Tam değil." in feedback and "Doğru cevap:" in feedback
        assert turkish.explanation in html.unescape(feedback)
        assert stored_question(question_id).explanation not in html.unescape(feedback)
        assert 'lang="en"' not in block


@pytest.mark.parametrize("code", LANGUAGES)
def test_generated_questions_answered_right_on_a_translated_page_count_as_right(client, code):
    url, token = _start(client, code)
    page = client.get(url).text
    generated = [question_id for question_id in question_ids(page) if question_id.startswith("gen-")]
    for question_id in generated:
        assert _answer(client, url, token, question_id, right_answer_of(question_id)).status_code == 303
    page = client.get(url).text
    assert all(verdicts(page)[question_id] == "true" for question_id in generated)
    for question_id in generated:
        assert 'lang="en"' not in _block(page, question_id)


def test_an_english_attempt_shows_the_english_generated_questions(client):
    url, _ = _start(client, "")
    page = client.get(url).text
    generated = [question_id for question_id in question_ids(page) if question_id.startswith("gen-")]
    assert generated
    for question_id in generated:
        english = stored_question(question_id)
        assert _worded(english, "en") == (english, "en")
        assert english.prompt in html.unescape(_block(page, question_id))


# -- grading ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_generated_question_is_worded_in_every_part_and_graded_as_the_english(code):
    for english in _samples():
        worded, language = _worded(english, code)
        assert language == code, english.id  # every template of the generators is in the catalog
        texts = {"prompt": english.prompt, "explanation": english.explanation}
        if isinstance(english, ChoiceQuestion):
            texts["options"] = english.options
        assert dataclasses.replace(worded, **texts) == english  # only the texts differ: id, type, answers do not
        assert worded.prompt != english.prompt and worded.explanation != english.explanation
        assert right_answer(worded) == right_answer(english)
        if isinstance(english, ChoiceQuestion):
            assert isinstance(worded, ChoiceQuestion) and len(worded.options) == len(english.options)
            for mine, theirs in zip(worded.options, english.options, strict=True):
                assert mine.explanation != theirs.explanation
                assert (mine.text == theirs.text) is (theirs.text == "NaN")  # a name, the same everywhere
            others = sorted(set(range(len(english.options))) - english.answers)
            wrong: object = [others[0]] if english.type == "multiple" else others[0]
        else:
            wrong = "0x0" if english.type == "bits" else str(getattr(english, "answer", 0) * 3 + 1000)
        right = right_answer(english)
        for answer in (right, wrong):
            mine, theirs = grade(worded, answer), grade(english, answer)
            assert mine.correct is theirs.correct
        assert grade(worded, right).correct and not grade(worded, wrong).correct


def test_numbers_bit_patterns_and_format_names_stay_canonical():
    english = generated_question("gen:stored:float8_e4m3fn:0.01")
    for code in LANGUAGES:
        worded, _ = _worded(english, code)
        for kept in ("0.01", "FP8 E4M3 (OCP)", "0x05", "0.009765625", "0.01171875", "0 0000 101", "2^-6"):
            assert kept in worded.prompt + worded.explanation, (code, kept)


def test_a_generated_question_the_catalog_lacks_stays_english(monkeypatch):
    monkeypatch.setattr(localised, "translations", lambda code: NullTranslations())
    english = generated_question("gen:overflow:float16:-940000")
    assert _worded(english, "tr") == (english, "en")
    assert _worded(english, "tr")[0].prompt == english.prompt


# -- the English is as it was -------------------------------------------------------------------------------------

EXACT = "Type it exactly: a decimal, a fraction such as 1025/1024 or a hex float such as 0x1.004p0."
ENGLISH = {
    "gen:bits:float8_e4m3fn:2": (
        "2 is rounded to FP8 E4M3 (OCP), to nearest with ties to even. Type the bits that are stored, in hex (0x…) "
        "or binary.",
        "2 in FP8 E4M3 (OCP) is stored as 0x40 = 2 exactly: it is representable. 0x40 (binary 0 1000 000): sign 0, "
        "exponent field 8 − bias 7 = 1, mantissa field 000, so the value is 1.000 (binary) × 2^1 = 2.", []),
    "gen:decode:float8_e4m3fn:0x38": (
        f"Which value does the FP8 E4M3 (OCP) pattern 0x38 (binary 0 0111 000) hold? {EXACT}",
        "0x38 (binary 0 0111 000): sign 0, exponent field 7 − bias 7 = 0, mantissa field 000, so the value is 1.000 "
        "(binary) × 2^0 = 1.", []),
    "gen:max:bfloat16": (
        "What is the largest finite value of BF16 (brain float)? Three significant figures will do.",
        "In BF16 (brain float) the all-ones exponent field is kept for infinity and NaN. The largest finite pattern "
        "is 0x7f7f (binary 0 11111110 1111111): sign 0, exponent field 254 − bias 127 = 127, mantissa field "
        "1111111, so the value is 1.1111111 (binary) × 2^127 = 3.3895313892515354759047080037148786688e+38 ≈ "
        "3.39e38.", []),
    "gen:max:float8_e5m2fnuz": (
        "What is the largest finite value of FP8 E5M2 FNUZ?",
        "In FP8 E5M2 FNUZ there is no infinity, and the only NaN is the pattern of negative zero. The largest finite "
        "pattern is 0x7f (binary 0 11111 11): sign 0, exponent field 31 − bias 16 = 15, mantissa field 11, so the "
        "value is 1.11 (binary) × 2^15 = 57344.", []),
    "gen:next_up:float8_e4m3fn:0x2e": (
        f"0.4375 is a value of FP8 E4M3 (OCP). What is the next larger value of FP8 E4M3 (OCP)? {EXACT}",
        "0.4375 = 1.110 (binary) × 2^-2. With 3 mantissa bits, values from 2^-2 to 2^-1 are 2^-5 = 0.03125 apart, "
        "so the next one is 0.46875 (0x2f).", []),
    "gen:stored:float8_e4m3fn:0.01": (
        f"0.01 is rounded to FP8 E4M3 (OCP), to nearest with ties to even. Which value is stored? {EXACT}",
        "With 3 mantissa bits, 0.01 is stored as 0x05 = 0.009765625, the nearer of the two values around it, "
        "0.009765625 and 0.01171875 (a tie would go to the one with an even mantissa). 0x05 (binary 0 0000 101): "
        "sign 0, exponent field 0, a subnormal, so 2^-6, mantissa field 101, so the value is 0.101 (binary) × 2^-6 "
        "= 0.009765625.", []),
    "gen:underflow:float16:9.71e-8": (
        "The value 9.71e-8 is rounded to FP16 (half), to nearest with ties to even. What happens?",
        "In FP16 (half), 9.71e-8 is stored as 1.1920928955078125e-7 (0x0002).",
        [("It becomes 0 (underflow).",
          "Only values up to half the smallest subnormal, 2^-25 ≈ 2.98e-8, round to 0 (half itself is a tie, which "
          "goes to the even 0); 9.71e-8 is above it."),
         ("It is stored as a subnormal number, with fewer significant bits.",
          "Subnormals run from 2^-24 ≈ 5.96e-8 to just below the smallest normal; 9.71e-8 rounds to ≈ 1.19e-7, "
          "which is one."),
         ("It is stored as a normal number.",
          "Normal numbers start at 2^-14 ≈ 6.1e-5; 9.71e-8 is below that after rounding.")]),
    "gen:overflow:float16:-940000": (
        "The largest finite FP16 (half) value is 65504. What does a cast (as ml_dtypes casts, without asking for "
        "saturation) store for -940000?",
        "-940000 in FP16 (half) becomes -inf (0xfc00).",
        [("−infinity", "FP16 (half) has an infinity, and overflow rounds to it as in IEEE 754."),
         ("NaN", "FP16 (half) does not turn overflow into NaN."),
         ("−65504, the most negative finite value (saturation)",
          "Saturation is an option of a cast, not ml_dtypes' default in this format.")]),
    "gen:overflow:float8_e4m3fn:-5280": (
        "The largest finite FP8 E4M3 (OCP) value is 448. What does a cast (as ml_dtypes casts, without asking for "
        "saturation) store for -5280?",
        "-5280 in FP8 E4M3 (OCP) becomes nan (0xff).",
        [("−infinity", "FP8 E4M3 (OCP) has no infinity to overflow to."),
         ("NaN", "With no infinity to go to, ml_dtypes' cast gives NaN in this format unless saturation (±max) is "
                 "asked for. Other libraries choose differently, as the OCP FP8 specification allows: PyTorch's "
                 ".to(torch.float8_e4m3fn) saturates to ±max since PyTorch 2.12, and Transformer Engine's casts "
                 "saturate too."),
         ("−448, the most negative finite value (saturation)",
          "Saturation is an option of a cast, not ml_dtypes' default in this format.")]),
    "gen:overflow:float6_e3m2fn:254": (
        "The largest finite FP6 E3M2 value is 28. What does a cast (as ml_dtypes casts, without asking for "
        "saturation) store for 254?",
        "254 in FP6 E3M2 becomes 28 (0x1f).",
        [("+infinity", "FP6 E3M2 has no infinity to overflow to."),
         ("NaN", "FP6 E3M2 does not turn overflow into NaN."),
         ("+28, the largest finite value (saturation)",
          "FP6 E3M2 has neither infinity nor NaN, so a value beyond max is clamped to ±max.")]),
}


@pytest.mark.parametrize("question_id", sorted(ENGLISH))
def test_the_english_text_of_a_generated_question_is_unchanged(question_id):
    prompt, explanation, options = ENGLISH[question_id]
    question = generated_question(question_id)
    assert (question.prompt, question.explanation) == (prompt, explanation)
    assert [(option.text, option.explanation) for option in getattr(question, "options", ())] == options
    assert question.public()["prompt"] == prompt  # what the API shows, in every language
