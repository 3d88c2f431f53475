"""Certificate ids: 80 random bits in Crockford base32 with its mod-37 check symbol, shown in four groups of four
and the check symbol after a hyphen, as in EXAMPLE_ID.

The check symbol catches every single mistyped symbol and every swap of two neighbours, so a mistyped id
is refused before any database lookup.
"""

from __future__ import annotations

import re
import secrets

from app.refusal import Refusal

SYMBOLS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32: no I, L, O or U
CHECK_SYMBOLS = SYMBOLS + "*~$=U"  # value mod 37
ID_BITS = 80
_LENGTH = ID_BITS // 5
_READ_AS = str.maketrans("OIL", "011")  # the letters people type for the digits they look like
_SEPARATORS = re.compile(r"[\s\-\u2010-\u2015]+")  # spaces, hyphens and dashes


class InvalidCertificateId(Refusal):
    """Text that is not a certificate id; the message says why, in a sentence."""


def new_certificate_id() -> str:
    """A fresh id from 80 bits of the operating system's randomness, in its canonical form."""
    return _shown(secrets.randbits(ID_BITS))


def normalise_certificate_id(text: str) -> str:
    """The canonical form of a typed id (any case, with or without hyphens, O for 0, I or L for 1)."""
    compact = _SEPARATORS.sub("", text).upper().translate(_READ_AS)
    if len(compact) != _LENGTH + 1:
        raise InvalidCertificateId(
            f"A certificate ID has {_LENGTH} symbols and a check symbol, as in {EXAMPLE_ID}; "
            f"this one has {len(compact)}."
        )
    if wrong := sorted({symbol for symbol in compact[:-1] if symbol not in SYMBOLS}):
        raise InvalidCertificateId(
            "A certificate ID uses the digits 0-9 and the letters A-Z except I, L, O and U; "
            f"{', '.join(map(repr, wrong))} {'is' if len(wrong) == 1 else 'are'} not one of them."
        )
    if compact[-1] not in CHECK_SYMBOLS:
        raise InvalidCertificateId(
            "The last symbol, the check symbol, is a digit, a letter other than I, L and O, or one of * ~ $ =; "
            f"{compact[-1]!r} is not one of them."
        )
    value = 0
    for symbol in compact[:-1]:
        value = value * 32 + SYMBOLS.index(symbol)
    if CHECK_SYMBOLS[value % 37] != compact[-1]:
        raise InvalidCertificateId(
            "The check symbol (the last one) does not match the others, so a symbol was mistyped; "
            "please check the ID again."
        )
    return _shown(value)


def is_well_formed(text: str) -> bool:
    """Whether the text reads as a certificate id with the right check symbol."""
    try:
        normalise_certificate_id(text)
    except InvalidCertificateId:
        return False
    return True


def _shown(value: int) -> str:
    symbols = "".join(SYMBOLS[(value >> 5 * i) & 31] for i in reversed(range(_LENGTH)))
    groups = [symbols[i : i + 4] for i in range(0, _LENGTH, 4)]
    return "-".join([*groups, CHECK_SYMBOLS[value % 37]])


# The shape of an id, for messages and forms (a fixed number, so the example reads the same everywhere).
EXAMPLE_ID = _shown(0x0123456789ABCDEF0123)
