"""The JSON that /dot's script (static/js/dot.js) works from: the input formats' specifications (codec_specs), the
tensor-core models and the promoted method's narrow accumulator as app/formats/tensor_cores.py has them, the doubles
numpy draws for the page's seed, n and distribution (the browser stores them in any format; it does not draw them),
the page's digit symbols, and on a page in another language the words the scripts say (script_words.py)."""

from __future__ import annotations

from typing import Any

from babel.numbers import get_decimal_symbol, get_group_symbol

from app.formats import (
    DOT_DISTRIBUTIONS,
    DOT_FORMATS,
    FORMATS,
    MAX_DOT_LENGTH,
    MAX_DOT_SEED,
    NARROW,
    TENSOR_CORES,
    DotInputError,
    drawn_doubles,
    parse_dot_setting,
)
from app.web.platform.languages import current_language
from app.web.platform.script_words import script_words
from app.web.visualise.codec_specs import codec_spec, embedded_json


def _adder(adder: Any) -> dict[str, int]:
    return {"block": adder.block, "window": adder.window, "output_bits": adder.output_bits}


def dot_models() -> dict[str, Any]:
    """Each tensor core's name and its adder for each input format it takes, and the narrow accumulator."""
    return {"cores": {core.id: {"name": core.name, "models": {f: _adder(m.adder) for f, m in core.models.items()}}
                      for core in TENSOR_CORES.values()},
            "narrow": _adder(NARROW)}


def drawn_json(distribution: str, n: str, seed: str) -> dict[str, Any] | None:
    """The doubles drawn for these settings as typed, or None where they are not a draw."""
    try:
        length, chosen = parse_dot_setting(n, "n", 1, MAX_DOT_LENGTH), parse_dot_setting(seed, "seed", 0, MAX_DOT_SEED)
    except DotInputError:
        return None
    if distribution not in DOT_DISTRIBUTIONS:
        return None
    a, b = drawn_doubles(distribution, length, chosen)
    return {"distribution": distribution, "n": length, "seed": chosen, "a": a.tolist(), "b": b.tolist()}


def dot_data(prefix: str, values: dict[str, Any]) -> str:
    """The page's <script type="application/json"> block for the form's values as the query gave them."""
    locale = current_language().locale
    return embedded_json({
        "specs": [codec_spec(FORMATS[f]) for f in DOT_FORMATS], "models": dot_models(),
        "drawn": drawn_json(values["distribution"], values["n"], values["seed"]),
        "digits": {"decimal": get_decimal_symbol(locale), "group": get_group_symbol(locale)},
        "prefix": prefix, "words": script_words(["dot.js"]),
    })
