"""Turkish and Greek write a decimal comma in running text (165,2 TFLOP/s), in the catalogs and the quiz banks
alike; what the lab writes canonically keeps its point: exact values it computes, bit patterns, code, software and
standard versions (docs/translating.md). A number with a point that is canonical on purpose is listed, with why, in
locales/<code>/canonical_numbers.txt (`token  # why`)."""

from __future__ import annotations

import re

import pytest

from app.web.platform.catalogs import LOCALES_DIR
from tests.helpers.translations import bank_pairs, catalog_pairs

COMMA_LANGUAGES = ("tr", "el")
CODE_SPAN = re.compile(r"<code>.*?</code>|`[^`]*`", re.S)
PLACEHOLDER = re.compile(r"%\(\w+\)s")
DECIMAL = re.compile(r"(?<![\w.,/])(\d+)\.(\d+)(?![\w.])")
# A version follows its product's name (PyTorch 2.12, CUDA 12.8, Arm v8.2, OCP MX v1.0, LTI 1.3, Open Badges 3.0), a
# paper's number its arXiv.
VERSION = re.compile(r"(?:\bv|version\s*|sürüm\s*|έκδοση\s*|PyTorch\s*|torch\s*[=<>]*\s*|CUDA\s*|Python\s*|Moodle\s*"
                     r"|Unicode\s*|Badges\s*|LTI\s*|Arm\s*v?|Armv|MX\s*v?|IEEE\s*754[-‑–]?|ml_dtypes\s*|numpy\s*"
                     r"|Transformer Engine\s*|TE\s*|cuBLAS\s*|ROCm\s*|§\s*|arXiv:\s*)$", re.I)
EXACT_DIGITS = 7  # an exact value the lab computes has many digits; a prose number has few


def canonical(code: str) -> set[str]:
    path = LOCALES_DIR / code / "canonical_numbers.txt"
    if not path.exists():
        return set()
    tokens = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        token, _, why = line.partition("#")
        if token.strip():
            assert why.strip(), f"{path.name}: {token.strip()} needs a reason after '#'"
            tokens.add(token.strip())
    return tokens


def points_in_prose(text: str, kept: set[str]) -> list[str]:
    text = PLACEHOLDER.sub(" ", CODE_SPAN.sub(" ", text))
    found = []
    for match in DECIMAL.finditer(text):
        if len(match.group(2)) >= EXACT_DIGITS or match.group(0) in kept:
            continue
        if VERSION.search(text[max(0, match.start() - 24):match.start()]):
            continue
        found.append(match.group(0))
    return found


@pytest.mark.parametrize("code", COMMA_LANGUAGES)
def test_running_text_writes_a_decimal_comma(code):
    kept = canonical(code)
    problems = [f"{where}: {found}" for where, _, said in catalog_pairs(code) + bank_pairs(code)
                if (found := points_in_prose(said, kept))]
    assert not problems, f"{len(problems)} texts:\n" + "\n".join(problems)


def test_the_rule_tells_prose_from_canonical():
    assert points_in_prose("RTX 4090: 165.2 TFLOP/s", set()) == ["165.2"]
    assert points_in_prose("PyTorch 2.12 ve Arm v8.2", set()) == []
    assert points_in_prose("0.100000001490116119384765625 <code>x = 0.5</code>", set()) == []
    assert points_in_prose("%(value)s ile 0,5", set()) == []
