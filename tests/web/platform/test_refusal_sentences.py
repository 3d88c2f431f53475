"""refusal_sentence (app/web/platform/refusal_sentences.py): a formats refusal in the page's language, its parameters
filled and its words (a Phrase) translated too; English, and the JSON API under any prefix, keep str(refusal)."""

from __future__ import annotations

import pytest

from app.formats import parse_bits, parse_value
from app.formats.custom import custom_format
from app.formats.registry import FORMATS
from app.messages import Phrase
from app.refusal import Refusal
from app.web.platform import refusal_sentences
from app.web.platform.languages import ENGLISH, SERVED, speaking
from app.web.platform.refusal_sentences import refusal_sentence
from tests.helpers.refusal_cases import CASES


def _refusal(call) -> Refusal:
    with pytest.raises(Refusal) as caught:
        call()
    return caught.value


def _in(code: str, error: BaseException) -> str:
    with speaking(SERVED[code]):
        return refusal_sentence(error)


def test_an_unreadable_number_in_turkish_names_what_was_typed_and_what_is_accepted():
    error = _refusal(lambda: parse_value("abc"))
    assert _in("tr", error) == (
        "'abc' bir sayı olarak okunamadı. Kabul edilenler: ondalık sayılar (0.1, -2.5e-3), onaltılık kayan noktalı "
        "sayılar (0x1.8p-3), kesirler (1/3), inf, -inf, nan, -0 ve ham bitler (0x3c00 ya da 0b0011110000000000)."
    )
    assert str(error).startswith("Could not read 'abc' as a number. Accepted: decimals (0.1")


def test_a_pattern_too_wide_in_greek_and_yoruba():
    error = _refusal(lambda: parse_bits("0x10000", FORMATS["float16"]))
    assert _in("el", error) == (
        "Το μοτίβο '0x10000' είναι ευρύτερο από τα 16 bit του float16· το μεγαλύτερο μοτίβο είναι 0xffff.")
    assert _in("yo", error) == "Àpẹẹrẹ '0x10000' fẹ̀ ju bit 16 ti float16 lọ; àpẹẹrẹ tó tóbi jù lọ ni 0xffff."


def test_words_given_as_a_parameter_are_translated_with_the_sentence():
    error = _refusal(lambda: custom_format(5, 10, 10**20))
    assert isinstance(error.params["given"], Phrase)
    assert _in("tr", error) == (
        "Özel bir formatın sapması (bias) -32768 ile 32768 arasındadır, bu yüzden 15 basamaktan uzun bir bias "
        "reddedildi.")


@pytest.mark.parametrize(("name", "call", "english"), CASES, ids=[case[0] for case in CASES])
def test_every_refusal_is_english_in_english_and_translated_elsewhere(name, call, english):
    error = _refusal(call)
    with speaking(ENGLISH):
        assert refusal_sentence(error) == english
    for code in ("tr", "el", "yo"):
        sentence = _in(code, error)
        assert sentence != english, (code, name)
        for value in error.params.values():
            assert isinstance(value, Phrase) or value in sentence, (code, name, value)


def test_a_refusal_without_a_template_is_shown_as_it_is():
    assert _in("tr", Refusal("An English sentence, not marked.")) == "An English sentence, not marked."


def test_a_translation_that_cannot_be_filled_falls_back_to_the_english(monkeypatch):
    error = _refusal(lambda: parse_value("abc"))
    monkeypatch.setattr(refusal_sentences, "gettext", lambda message: "%(missing)s")
    assert _in("tr", error) == str(error)


@pytest.mark.parametrize("prefix", ["", "/tr", "/el", "/yo"])
def test_the_api_keeps_the_english_sentence_under_any_prefix(client, prefix):
    response = client.get(f"{prefix}/api/formats/float16/decode?bits=0x10000")
    assert response.status_code == 422
    assert response.json()["detail"] == (
        "The pattern '0x10000' is wider than float16's 16 bits; the largest pattern is 0xffff.")
