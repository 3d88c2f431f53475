"""Refusal: what every layer raises for a request it will not carry out, with the sentence a person can act on
and the HTTP status that says what kind of refusal it is.

The cores' input, configuration, answer and lookup errors, and the store's, are Refusals; the web layer answers
every one the same way (app/web/platform/refusal_handlers.py), so no route maps exceptions to statuses on its own. It
is a ValueError, so that a pydantic validator raising one refuses the field it checks.

A refusal may carry its sentence as a `template` (English, marked N_, with %(name)s placeholders) and `params`
(already formatted as the English shows them): str() is then `template % params`, and a page can show the
sentence in its own language (app/web/platform/refusal_sentences.py) while the API keeps the English.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from types import MappingProxyType


class Refusal(ValueError):
    """A request refused; str() is the sentence, `status` the HTTP status (422 unless a subclass says)."""

    status = 422
    retry_after: int | None = None  # seconds, sent as Retry-After, when waiting is what the person can do
    template: str | None = None  # the sentence's N_-marked English template, when it has one
    params: Mapping[str, str] = MappingProxyType({})

    def __init__(self, *args: object, template: str | None = None, params: Mapping[str, str] | None = None) -> None:
        if template is not None:
            self.template, self.params = template, dict(params or {})
            args = (template % self.params,)
        super().__init__(*args)


class NotFound(Refusal, LookupError):
    """Something asked for by name or id that is not there."""

    status = 404


class Conflict(Refusal):
    """A request at odds with what is stored: it was done already, or can no longer be done."""

    status = 409


# -- how a refusal quotes what someone typed --------------------------------------------------------------------------
#
# As Python's repr() does, except that which characters are escaped is
# fixed here rather than read from the running interpreter's Unicode data, so that the Python core and the browser's
# copy (static/js/codec.js, quoted) quote every character alike whatever Unicode version either one has.
#
# Escaped: the controls, format characters, surrogates, private-use characters and separators (categories Cc, Cf, Cs,
# Co, Zl, Zp and Zs but the space) as Unicode 14.0 assigns them, and the noncharacters; every other character, an
# unassigned one included, is shown as it is. The table is Unicode 14's (Python 3.11's unicodedata), written out so
# that a newer Unicode changes nothing; tests/unit/test_quoting.py derives it again from unicodedata and holds the
# JavaScript copy to it.

# (first, last) code points, inclusive, in order
ESCAPED_RANGES: tuple[tuple[int, int], ...] = (
    (0x0, 0x1F), (0x7F, 0xA0), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C),
    (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x1680, 0x1680),
    (0x180E, 0x180E), (0x2000, 0x200F), (0x2028, 0x202F), (0x205F, 0x2064), (0x2066, 0x206F),
    (0x3000, 0x3000), (0xD800, 0xF8FF), (0xFDD0, 0xFDEF), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB),
    (0xFFFE, 0xFFFF), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0x1FFFE, 0x1FFFF), (0x2FFFE, 0x2FFFF), (0x3FFFE, 0x3FFFF), (0x4FFFE, 0x4FFFF),
    (0x5FFFE, 0x5FFFF), (0x6FFFE, 0x6FFFF), (0x7FFFE, 0x7FFFF), (0x8FFFE, 0x8FFFF), (0x9FFFE, 0x9FFFF),
    (0xAFFFE, 0xAFFFF), (0xBFFFE, 0xBFFFF), (0xCFFFE, 0xCFFFF), (0xDFFFE, 0xDFFFF), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F), (0xEFFFE, 0x10FFFF),
)
_FIRSTS = [first for first, _ in ESCAPED_RANGES]
_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escaped(code: int) -> bool:
    """Whether a code point is written as an escape."""
    index = bisect.bisect_right(_FIRSTS, code) - 1
    return index >= 0 and code <= ESCAPED_RANGES[index][1]


def quoted(text: object) -> str:
    """repr() of a string with the escapes above; any other value as repr() gives it."""
    if not isinstance(text, str):
        return repr(text)
    quote = '"' if "'" in text and '"' not in text else "'"
    out = [quote]
    for char in text:
        code = ord(char)
        if char in _ESCAPES or char == quote:
            out.append(_ESCAPES.get(char, "\\" + char))
        elif code == 0x20 or not escaped(code):
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append(quote)
    return "".join(out)
