"""A refusal quotes typed text the same way in the Python core (app/refusal.py, quoted) and in the browser's codec
(static/js/codec_quote.js, quoted, which codec.js re-exports), whatever Unicode version either has: one fixed table
of escaped characters, derived here again from Unicode 14.0, and the JavaScript run in Node over every code point."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from app.refusal import ESCAPED_RANGES, quoted

ROOT = Path(__file__).resolve().parents[2]
CODEC = ROOT / "static" / "js" / "codec.js"
QUOTE = ROOT / "static" / "js" / "codec_quote.js"  # the table's home
NOT_SHOWN = {"Cc", "Cf", "Cs", "Co", "Zl", "Zp", "Zs"}
# Characters Unicode assigned after 14.0 (Python 3.11's), which a newer browser knows and Python does not
NEWER = "\U0001fae8\U00011f00\u2ffc\U0001e030\U0001f6dc"
SAMPLES = ["0.1", "it's", 'say "hi"', "both ' and \"", "tab\there", "line\nbreak", "back\\slash", "\x00\x7f\x9f",
           "zero\u200bwidth", "\ufeffbom", "e\u0301", "İşaret ẹ̀ ὠ", "\U0001f600", "\ud800", "\ue000", "\ufffe",
           "\U0010ffff", "\u00a0nbsp", "\u2028", "a\u3000b", NEWER]


def ranges(codes: list[int]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for code in codes:
        if merged and merged[-1][1] == code - 1:
            merged[-1] = (merged[-1][0], code)
        else:
            merged.append((code, code))
    return merged


def noncharacter(code: int) -> bool:
    return 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


@pytest.mark.skipif(unicodedata.unidata_version != "14.0.0", reason="the table is Unicode 14.0's")
def test_the_table_is_unicode_14s_unprintable_characters_and_the_noncharacters():
    derived = [code for code in range(0x110000) if code != 0x20 and (
        unicodedata.category(chr(code)) in NOT_SHOWN or noncharacter(code))]
    assert ranges(derived) == list(ESCAPED_RANGES)


@pytest.mark.skipif(unicodedata.unidata_version != "14.0.0", reason="repr() follows the interpreter's Unicode")
def test_an_assigned_character_is_quoted_as_repr_quotes_it():
    for code in range(0x110000):
        if unicodedata.category(chr(code)) != "Cn" and not noncharacter(code):
            assert quoted(chr(code)) == repr(chr(code)), hex(code)
    assert all(quoted(text) == repr(text) for text in SAMPLES if text != NEWER)


def test_a_character_newer_than_the_table_is_shown_not_escaped():
    assert quoted(NEWER) == f"'{NEWER}'"
    assert quoted(5) == "5" and quoted(None) == "None"


def test_the_browsers_copy_of_the_table_is_the_same():
    literal = QUOTE.read_text(encoding="utf-8").split("const ESCAPED_RANGES = [", 1)[1].split("];", 1)[0]
    pairs = [(int(a, 16), int(b, 16)) for a, b in re.findall(r"\[0x([0-9a-f]+), 0x([0-9a-f]+)\]", literal)]
    assert pairs == list(ESCAPED_RANGES)


def test_node_quotes_every_code_point_and_every_sample_as_python_does():
    node = shutil.which("node")
    assert node, "node is needed (the Makefile's bundling needs it too)"
    script = """
      const { quoted: quote } = await import(process.argv[1]);
      const escaped = [];
      for (let code = 0; code <= 0x10ffff; code += 1) {
        const text = String.fromCodePoint(code);
        if (quote(text) !== `'${text}'` && text !== "'" && text !== "\\\\") escaped.push(code);
      }
      const samples = JSON.parse(process.argv[2]).map(quote);
      process.stdout.write(JSON.stringify({ escaped, samples }));
    """
    run = subprocess.run([node, "--no-warnings", "--input-type=module", "-e", script, CODEC.as_uri(),
                          json.dumps(SAMPLES)], capture_output=True, text=True, check=True, timeout=120)
    said = json.loads(run.stdout)
    python_escaped = [code for code in range(0x110000) if quoted(chr(code)) != f"'{chr(code)}'"
                      and chr(code) not in "'\\"]
    assert said["escaped"] == python_escaped
    assert said["samples"] == [quoted(text) for text in SAMPLES]
