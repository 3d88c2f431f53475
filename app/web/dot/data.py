"""The JSON that /dot's script (static/js/dot.js) works from: the input formats' specifications (codec_specs), the
tensor-core models and the promoted method's narrow accumulator as app/formats/tensor_cores.py has them, the doubles
numpy draws for the page's seed, n and distribution (the browser stores them in any format; it does not draw them),
the page's digit symbols, and on a page in another language the words the scripts say (script_words.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from babel.numbers import get_decimal_symbol, get_group_symbol

from app.formats import (
    DOT_DISTRIBUTIONS,
    DOT_FORMATS,
    DOT_METHODS,
    FORMATS,
    MAX_DOT_LENGTH,
    MAX_DOT_SEED,
    NARROW,
    TENSOR_CORES,
    DotInputError,
    drawn_doubles,
    parse_dot_setting,
)
from app.web.dot.chart import LEFT, TOP, Chart, Series, Tick
from app.web.dot.present import sources
from app.web.platform.catalogs import gettext, prose_decimal
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


# What dot.js's modules can say but this page never shows, left out of its words (script_words' `unsaid`): the codec's
# encoders' sentences are the note of a value they store, and the page shows no note; it reads no bit pattern and no
# seed with the codec, and its rounding and overflow are fixed (nearest even, the format's own). The browser tests
# hold the script's page to the server's in every language (tests/browser/test_dot_instant.py), which a sentence
# missing here would break.
NEVER_SAID = frozenset({"codec.js:encodeFloat", "codec.js:encodeInt", "codec.js:encodeCodebook", "codec.js:parseBits",
                        "codec.js:seedValue", "codec_rounding.js:roundingMode", "codec_rounding.js:overflowPolicy"})


def dot_data(prefix: str, values: dict[str, Any]) -> str:
    """The page's <script type="application/json"> block for the form's values as the query gave them."""
    locale = current_language().locale
    return embedded_json({
        "specs": [codec_spec(FORMATS[f]) for f in DOT_FORMATS], "models": dot_models(),
        "drawn": drawn_json(values["distribution"], values["n"], values["seed"]),
        "digits": {"decimal": get_decimal_symbol(locale), "group": get_group_symbol(locale)},
        "prefix": prefix, "words": script_words(["dot.js"], (), NEVER_SAID),
    })


def _all_series(drawn: Chart, methods: tuple[str, ...]) -> Chart:
    """The chart with a path for every method (empty for those not drawn), so that the script has one to fill."""
    paths = {s.id: s.d for s in drawn.series}
    return replace(drawn, series=tuple(Series(m, paths.get(m, "")) for m in methods))


def _all_rows(shown_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A table row for every method: the figure's, and an empty one (hidden) for each of the others."""
    by_method = {r["method"]: r for r in shown_rows}
    return [by_method.get(m) or {"method": m, "name": gettext(name), "format": "", "value": None, "error": None,
                                 "rel_error": "", "ulps": ""} for m, name in DOT_METHODS.items()]


def page_slots(prefix: str, values: dict[str, Any]) -> dict[str, Any]:
    """What templates/dot.html writes for the script to fill whatever the figure: the page's JSON, every format's
    tensor-core sources, and an empty figure (hidden), which page_figure_slots fills where the server computes one."""
    empty = Chart("", (), (Tick(LEFT, prose_decimal(1)),), (Tick(TOP, ""),))
    return {"data": dot_data(prefix, values), "all_sources": {f: sources(f) for f in DOT_FORMATS},
            "format_names": {f: FORMATS[f].name for f in DOT_FORMATS}, "chart": _all_series(empty, tuple(DOT_METHODS)),
            "all_rows": _all_rows([]), "shown_methods": (), "shown_format": None, "spec": None, "exact": None,
            "step": None}


def page_figure_slots(drawn: Chart, shown_rows: list[dict[str, Any]], format_id: str) -> dict[str, Any]:
    """page_slots for a computed figure: its chart with every method's path, its rows among every method's."""
    return {"chart": _all_series(drawn, tuple(DOT_METHODS)), "all_rows": _all_rows(shown_rows),
            "shown_methods": tuple(r["method"] for r in shown_rows), "shown_format": format_id}
