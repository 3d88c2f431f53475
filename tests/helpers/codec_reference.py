"""The Python codec's answers, the reference that the browser's codec (static/js/codec.js) is held to: each case one
string of fields (tests/helpers/parity.py), as tests/js/codec_harness.mjs writes the JavaScript's."""

from __future__ import annotations

import struct
from fractions import Fraction

from app.formats import (
    OVERFLOW_POLICIES,
    ROUNDINGS,
    Encoding,
    FormatSpec,
    InputError,
    RawBits,
    Real,
    decode,
    encode,
    next_down,
    next_up,
    overflow_policy,
    parse_bits,
    parse_value,
    rounding_mode,
    ulp,
)
from app.web.visualise.inputs import seed_value
from app.web.visualise.present import SHORT_LENGTH, relative, shown
from app.web.visualise.serialise import real_json
from tests.helpers.parity import SEP

FULL = 4000  # the visualiser shows exact values in full up to this many characters (pages.FULL)
COMBOS = [(mode, policy) for mode in ROUNDINGS for policy in OVERFLOW_POLICIES]  # every input meets each
FIELDS_DECODED = ["hex", "binary", "class", "value", "sign", "exponent_field", "mantissa_field", "exponent",
                  "significand", "next_up", "next_down", "ulp", "stored_short", "shown", "shown_ulp"]
FIELDS_STORED = ["hex", "class", "value", "input", "input_exact", "error", "error_exact", "rel_error",
                 "rel_error_text", "overflowed", "underflowed", "note", "typed_value", "error_value", "stored_short",
                 "shown_input", "shown_error", "shown_value"]


def _text(x: object) -> str:
    return "None" if x is None else str(x)


def _exact(x: Fraction | None) -> str:
    return "None" if x is None else Real.of(x).exact_string()


def _shown(x: Real | Fraction | None, limit: int = SHORT_LENGTH, digits: int = 7) -> str:
    short = shown(x, limit, digits)
    return "None" if short is None else short.text


def _float_bits(x: float | None) -> str:
    return "None" if x is None else struct.pack(">d", x).hex()


def decoded(enc: Encoding) -> str:
    """A pattern's fields: bits, class, exact value, neighbours, ulp and their short forms."""
    up, down, gap = next_up(enc), next_down(enc), ulp(enc)
    return SEP.join([
        enc.hex, enc.binary, enc.cls, enc.value.exact_string(), _text(enc.sign), _text(enc.exponent_field),
        _text(enc.mantissa_field), _text(enc.exponent), _exact(enc.significand),
        up.value.exact_string() if up else "None", down.value.exact_string() if down else "None", _exact(gap),
        _shown(enc.value, 60, 17), _shown(enc.value), _shown(gap),
    ])


def decoded_all(spec: FormatSpec, patterns: list[str]) -> list[str]:
    return [decoded(decode(spec, int(bits))) for bits in patterns]


def stored(spec: FormatSpec, text: str, seed: str) -> list[str]:
    """What the visualiser does with typed text (pages._stored) in each of COMBOS, each as one string of fields.

    The fields of a stored value and of its error are worked out once per pattern: most modes store the same one.
    """
    try:
        seed_number = seed_value(seed)
        parsed = parse_value(text)
        if isinstance(parsed, RawBits):
            enc = decode(spec, parse_bits(parsed.text, spec))
            return [SEP.join(["raw", enc.hex, enc.cls, enc.value.exact_string()])] * len(COMBOS)
    except InputError as refusal:
        return ["refused" + SEP + str(refusal)] * len(COMBOS)
    given, given_exact = real_json(parsed)
    given_fields = [given, str(given_exact).lower()]
    given_shown = [_shown(parsed, FULL), _shown(parsed)]
    by_pattern: dict[int, tuple[list[str], list[str], list[str]]] = {}
    records = []
    for mode, policy in COMBOS:
        result = encode(spec, parsed, rounding_mode(mode), overflow_policy(policy), seed_number)
        enc = result.encoding
        if enc.bits not in by_pattern:
            error, error_exact = real_json(result.error)
            by_pattern[enc.bits] = (
                [enc.hex, enc.cls, enc.value.exact_string()],
                [error, str(error_exact).lower(), _float_bits(result.rel_error), relative(result.rel_error)],
                [_shown(result.error, FULL), _shown(enc.value, 60, 17), given_shown[1], _shown(result.error),
                 _shown(enc.value)],
            )
        value_fields, error_fields, shown_fields = by_pattern[enc.bits]
        flags = [str(result.overflowed).lower(), str(result.underflowed).lower(), _text(result.note)]
        records.append(SEP.join(value_fields + given_fields + error_fields + flags + given_shown[:1] + shown_fields))
    return records


def stored_all(spec: FormatSpec, inputs: list[tuple[str, str]]) -> list[list[str]]:
    return [stored(spec, text, seed) for text, seed in inputs]
