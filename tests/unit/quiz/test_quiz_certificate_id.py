"""Certificate ids: Crockford base32 with a mod-37 check symbol; forgiving entry, mistakes caught."""

from __future__ import annotations

import random
import re

import pytest

from app.quiz import InvalidCertificateId, is_well_formed, new_certificate_id, normalise_certificate_id
from app.quiz.certificate_id import CHECK_SYMBOLS, SYMBOLS

FORM = re.compile(r"[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}-[0-9A-HJKMNP-TV-Z*~$=U]")
RNG = random.Random(20240601)


def _id_of(value: int) -> str:
    """An id built by hand from its 80-bit value, independently of the module's own layout code."""
    symbols = ""
    for _ in range(16):
        value, digit = divmod(value, 32)
        symbols = SYMBOLS[digit] + symbols
    return symbols  # without the check symbol


def _compact(certificate_id: str) -> str:
    return certificate_id.replace("-", "")


def test_alphabets() -> None:
    assert SYMBOLS == "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    assert CHECK_SYMBOLS == SYMBOLS + "*~$=U" and len(CHECK_SYMBOLS) == 37


def test_new_ids_are_canonical_and_round_trip() -> None:
    ids = {new_certificate_id() for _ in range(1000)}
    assert len(ids) == 1000
    for certificate_id in ids:
        assert FORM.fullmatch(certificate_id)
        assert normalise_certificate_id(certificate_id) == certificate_id
        assert is_well_formed(certificate_id)


def test_the_check_symbol_is_the_value_mod_37() -> None:
    for value in (0, 1, 36, 37, 2**80 - 1, RNG.getrandbits(80)):
        text = _id_of(value) + CHECK_SYMBOLS[value % 37]
        canonical = normalise_certificate_id(text)
        assert _compact(canonical) == text
    assert normalise_certificate_id("0000000000000000" + "0") == "0000-0000-0000-0000-0"
    assert normalise_certificate_id("0000000000000014" + "U") == "0000-0000-0000-0014-U"  # 36 → U
    assert normalise_certificate_id("0000000000000015" + "0") == "0000-0000-0000-0015-0"  # 37 → 0


def test_entry_is_forgiving() -> None:
    canonical = normalise_certificate_id("0000000000000014U")
    for typed in ("0000-0000-0000-0014-u", "0000 0000 0000 0014 U", "OOOO-oooo-0000-OOI4-U", "00000000000000L4U",
                  " 0000–0000—0000-0014-U ", "0000--0000-0000-0014-U", "oooooooooooooo14u"):
        assert normalise_certificate_id(typed) == canonical, typed
    for _ in range(200):
        certificate_id = new_certificate_id()
        sloppy = "".join(RNG.choice((c.lower(), c)) for c in _compact(certificate_id))
        sloppy = sloppy.replace("0", RNG.choice("Oo0")).replace("1", RNG.choice("IiLl1"))
        assert normalise_certificate_id(sloppy) == certificate_id


def test_every_single_substitution_is_caught() -> None:
    for _ in range(20):
        symbols = _compact(new_certificate_id())
        for position, original in enumerate(symbols):
            alphabet = SYMBOLS if position < 16 else CHECK_SYMBOLS
            for replacement in alphabet.replace(original, ""):
                typed = symbols[:position] + replacement + symbols[position + 1 :]
                with pytest.raises(InvalidCertificateId, match="check symbol"):
                    normalise_certificate_id(typed)


def test_every_swap_of_two_neighbours_is_caught() -> None:
    for _ in range(200):
        symbols = _compact(new_certificate_id())
        for position in range(15):
            a, b = symbols[position], symbols[position + 1]
            if a != b:
                swapped = symbols[:position] + b + a + symbols[position + 2 :]
                assert not is_well_formed(swapped), swapped


def test_ten_thousand_wrong_check_symbols_are_refused() -> None:
    for _ in range(10_000):
        value = RNG.getrandbits(80)
        wrong = RNG.choice(CHECK_SYMBOLS.replace(CHECK_SYMBOLS[value % 37], ""))
        with pytest.raises(InvalidCertificateId, match="check symbol"):
            normalise_certificate_id(_id_of(value) + wrong)


@pytest.mark.parametrize(("text", "phrase"), [
    ("", "has 0"),
    ("0000-0000-0000-0014", "has 16"),
    ("0000-0000-0000-0014-UU", "has 18"),
    ("x" * 10_000, "has 10000"),
    ("0000-0000-0000-00U4-U", "'U' is not one of them"),
    ("0000-0000-0000-00!4-U", "'!' is not one of them"),
    ("0000-0000-0000-0014-#", "'#' is not one of them"),
    ("0000-0000-0000-0014-*", "check symbol"),
    ("0000-0000-0000-0014-V", "check symbol"),
])
def test_malformed_ids_are_refused_with_a_sentence(text: str, phrase: str) -> None:
    with pytest.raises(InvalidCertificateId, match=re.escape(phrase)) as caught:
        normalise_certificate_id(text)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value).endswith(".")
    assert not is_well_formed(text)
