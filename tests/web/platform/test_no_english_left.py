"""Every page in every language: no English interface string left outside passages marked lang="en".

A translated page's visible text (tests/helpers/visible_text.py: text nodes and the attributes read aloud) is
compared with the English page's; a piece the two share, marked as in the page's language, is English left behind
unless tests/web/i18n_allowed.txt allows it (names, format names, numbers, code). Passages that are English on
purpose (the formats core's descriptions and notes, not translated yet) carry lang="en" and are not counted."""

from __future__ import annotations

import pytest

from app.web.platform.languages import PREFIXED
from tests.helpers.visible_text import english_left

PAGES = [
    "/", "/formats", "/learn", "/learn/glossary", "/learn/number-formats", "/learn/mixed-precision-training",
    "/learn/quantisation", "/learn/memory", "/learn/hardware", "/learn/accumulation", "/quiz", "/verify", "/train",
    "/visualise/float16?value=0.1", "/visualise/int8?value=-123", "/visualise/nf4?value=0.5", "/compare?value=0.1",
    "/visualise/mxfp4?preset=outlier", "/visualise/nvfp4", "/embed/visualise/float16?value=0.1", "/embed/train",
    "/docs",
]
# Pages not translated whole yet, as strict expected failures: one that passes must come off the list.
STILL_ENGLISH: set[tuple[str, str]] = set()
CASES = [pytest.param(url, code, marks=pytest.mark.xfail(strict=True, reason="not translated whole yet"))
         if (url, code) in STILL_ENGLISH else (url, code) for url in PAGES for code in sorted(PREFIXED)]


@pytest.mark.parametrize(("url", "code"), CASES)
def test_no_english_interface_string_is_left(client, url: str, code: str):
    english = client.get(url)
    translated = client.get(f"/{code}{url}")
    assert english.status_code == translated.status_code == 200
    assert f'<html lang="{code}"' in translated.text
    assert english_left(translated.text, english.text, code) == []


def test_the_check_finds_english_left_behind():
    english = '<html lang="en"><main><p>Stored value</p><p>FP16</p><code>0x3c00</code></main></html>'
    turkish = ('<html lang="tr"><main><p>Stored value</p><p>FP16</p><code>0x3c00</code>'
               '<p lang="en">Stored value</p><span aria-label="Stored value"></span></main></html>')
    assert english_left(turkish, english, "tr") == ["Stored value"]  # once, however often; not the marked one
    assert english_left(turkish.replace("Stored value</p><p>FP16", "Saklanan değer</p><p>FP16", 1)
                        .replace('aria-label="Stored value"', 'aria-label="Saklanan değer"'), english, "tr") == []
