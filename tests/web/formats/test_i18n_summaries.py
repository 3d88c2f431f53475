"""The formats' summaries and the notes of an encode in Turkish, Greek and Yoruba where pages show them (the lead,
the gallery of /formats, the pills' tooltips, a value's notes): the page's language, without lang="en". The English
pages and the JSON API keep the core's English, byte for byte."""

from __future__ import annotations

import html
import json
import re

import pytest

from app.formats import FORMATS

FP16_TR = "IEEE 754 binary16: hızlı, en fazla 65504"
FP16_EN = FORMATS["float16"].summary
LANGUAGES = ["tr", "el", "yo"]


def _lead(text: str) -> str:
    match = re.search(r'<p class="lead" data-hide-group="intro"([^>]*)>(.*?)</p>', text, re.S)
    assert match, "no lead"
    assert "lang=" not in match.group(1)
    return html.unescape(match.group(2))


def test_visualiser_lead_in_turkish(client):
    text = client.get("/tr/visualise/float16?value=0.1").text
    lead = _lead(text)
    assert lead.startswith(FP16_TR) and "2^-24 ≈ 6e-8" in lead
    # the pill's tooltip: the same summary, in Turkish; the pill's name, a format name, stays English
    pill = re.search(r'<a [^>]*data-format="float16" title="([^"]*)"[^>]*>(.*?)</a>', text)
    assert pill and html.unescape(pill.group(1)).startswith(FP16_TR)
    assert pill.group(2) == '<span lang="en">FP16 (half)</span>'


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_lead_translated(client, code):
    for path, english in [("/visualise/float16?value=0.1", FP16_EN),
                          ("/visualise/mxfp4?preset=outlier", FORMATS["mxfp4"].summary),
                          ("/visualise/nf4?value=0.5", FORMATS["nf4"].summary)]:
        lead = _lead(client.get(f"/{code}{path}").text)
        assert lead and lead != english, (code, path)


def test_formats_gallery_in_turkish(client):
    text = client.get("/tr/formats").text
    item = re.search(r'<li data-format="float16">.*?</li>', text, re.S)
    assert item
    summary = re.search(r"<p>(.*?)</p>", item.group(0), re.S)
    assert summary and html.unescape(summary.group(1)).startswith(FP16_TR)
    assert FP16_EN not in html.unescape(text)
    greek = client.get("/el/formats").text
    assert "Συμπλήρωμα ως προς δύο -128..127" in greek


@pytest.mark.parametrize(("path", "english", "turkish"), [
    ("/visualise/int8?value=300", "Outside -128..127: wrapped around modulo 2^8, as an integer cast does.",
     "-128..127 dışında"),
    ("/visualise/int8?value=300&overflow=saturate", "Outside -128..127: clamped to the range (saturation).",
     "-128..127 dışında: aralığa kırpıldı (doyurma)."),
    ("/visualise/float16?value=1e-10", "Too small for this format: flushed to zero (underflow).",
     "Bu format için çok küçük: sıfıra indi (alttan taşma)."),
])
def test_notes_translated(client, path, english, turkish):
    turkish_page = client.get(f"/tr{path}").text
    note = re.search(r'<div class="notes" data-note>.*?<span([^>]*)>(.*?)</span>', turkish_page, re.S)
    assert note and note.group(1) == "" and turkish in html.unescape(note.group(2))
    assert english in html.unescape(client.get(path).text)


def test_compare_notes_translated(client):
    page = client.get("/el/compare?value=1e40").text
    # the page's data carries the words of its script keyed by their English ids (script_words.py): what it shows,
    # and what the script says, is Greek
    data = re.search(r'<script type="application/json" id="compare-data">(.*?)</script>', page, re.S)
    assert data is not None
    text = html.unescape(page.replace(data.group(0), ""))
    assert "Πέρα από τη μεγαλύτερη πεπερασμένη τιμή: υπερχείλιση στο άπειρο." in text
    assert "overflow to infinity" not in text
    words = json.loads(data.group(1))["words"]["sentences"]
    assert words["Beyond the largest finite value: overflow to infinity."] == (
        "Πέρα από τη μεγαλύτερη πεπερασμένη τιμή: υπερχείλιση στο άπειρο.")


def test_custom_layout_summary(client):
    lead = _lead(client.get("/tr/visualise/custom?exponent_bits=3&mantissa_bits=2").text)
    assert lead == "Sizin yerleşiminiz: 1 işaret, 3 üs biti ve 2 mantis biti, sapma 3; IEEE tarzı ±sonsuz ve NaN."
    english = _lead(client.get("/visualise/custom?exponent_bits=3&mantissa_bits=2").text)
    assert english == "Your own layout: 1 sign, 3 exponent bits and 2 mantissa bits, bias 3; IEEE-style ±inf and NaN."
    same = _lead(client.get("/el/visualise/custom?exponent_bits=5&mantissa_bits=10").text)
    assert same.endswith("Η ίδια διάταξη με το float16.") and "5 bit εκθέτη και 10 bit μάντισσας" in same


def test_english_pages_keep_the_english(client):
    lead = _lead(client.get("/visualise/float16?value=0.1").text)
    assert lead == FP16_EN
    assert f"<p>{FORMATS['nf4'].summary}</p>" in html.unescape(client.get("/formats").text)


def test_api_stays_english(client):
    formats = {f["id"]: f for f in client.get("/api/formats", headers={"Accept-Language": "tr"}).json()}
    assert formats["float16"]["summary"] == FP16_EN
    encoded = client.get("/api/formats/int8/encode", params={"value": "300", "overflow": "saturate"}).json()
    assert encoded["note"] == "Outside -128..127: clamped to the range (saturation)."
    custom = client.get("/api/formats/custom", params={"exponent_bits": 3, "mantissa_bits": 2}).json()
    assert custom["summary"].startswith("Your own layout: 1 sign, 3 exponent bits and 2 mantissa bits, bias 3; ")
