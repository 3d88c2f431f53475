"""The guides, the glossary and the index of /learn through TestClient: figures, numbers, links, fragments."""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest

from app.formats import FORMATS, Real, decode, encode, get_format, next_up, parse_number, ulp
from app.formats.blocks import quantize_blocks
from app.formats.vector import round_to_format
from app.hardware.datafiles import DATA_DIR
from app.learn import DISTRIBUTIONS, SCALES, measure_formats, sample_tensor
from app.learn.sample_error import MEASURED_FORMATS, SAMPLE_SIZE
from app.training import RECIPES, bytes_per_param
from app.web.learn.guides import GUIDES, WORDS_PER_MINUTE
from app.web.platform.rendering import STATIC_DIR, entry_module
from app.web.train.present import approx
from tests.helpers.html import HX, PAGE_BUDGET, Elements, budgeted, first_visit

GUIDE_URLS = [guide.url for guide in GUIDES.values()]


def power(n: int) -> str:
    """2^n as the guides write it, with a true minus sign."""
    return f"2<sup>{n}</sup>".replace("-", "−")


def exponent_of(x) -> int:
    return x.numerator.bit_length() - x.denominator.bit_length()


# -- pages and fragments --------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/learn", "/learn/glossary", *GUIDE_URLS])
def test_each_page_renders_whole_for_a_browser_and_as_a_fragment_for_htmx(client, url):
    page = client.get(url)
    assert page.status_code == 200 and "<html" in page.text
    assert "HX-Request" in page.headers["vary"]
    fragment = client.get(url, headers=HX)
    assert fragment.status_code == 200 and fragment.text.strip()
    assert "<html" not in fragment.text and "<head" not in fragment.text


@pytest.mark.parametrize("url", ["/learn/no-such-guide", "/learn/number-formats/more"])
def test_an_unknown_guide_is_the_404_page(client, url):
    for headers in ({}, HX):
        response = client.get(url, headers=headers)
        assert response.status_code == 404
        assert "There is no page at" in response.text


def test_the_other_pages_under_learn_are_not_shadowed(client):
    assert client.get("/learn/memory").status_code == 200
    assert client.get("/learn/hardware").status_code == 200


@pytest.mark.parametrize("url", ["/learn", "/learn/glossary", *GUIDE_URLS])
def test_no_inline_script_style_or_event_handler(client, url):
    page = Elements(client.get(url).text)
    assert all("src" in attrs for tag, attrs in page.tags if tag == "script")
    assert not [tag for tag, _ in page.tags if tag == "style"]
    assert not [(tag, name) for tag, attrs in page.tags for name in attrs if name == "style" or name.startswith("on")]


@pytest.mark.parametrize("url", budgeted(GUIDE_URLS))
def test_first_visit_stays_under_150_kb_with_its_loaded_figures(client, url):
    html = client.get(url).text
    page = Elements(html)
    loaded = [a["data-hx-get"] for a in page.having("data-hx-trigger") if a["data-hx-trigger"] == "load"]
    sizes = [len(body) for body in first_visit(html, client).values()]  # its modules' imports counted too
    sizes += [len(client.get(src, headers=HX).content) for src in loaded]
    assert len(html.encode()) + sum(sizes) < PAGE_BUDGET


# -- reading time, Listen, what comes next -------------------------------------------------------


@pytest.mark.parametrize("guide", GUIDES.values(), ids=lambda g: g.slug)
def test_each_guide_shows_its_reading_time_from_its_word_count(client, guide):
    page = Elements(client.get(guide.url).text)
    assert guide.words > 800
    assert guide.minutes == math.ceil(guide.words / WORDS_PER_MINUTE)
    assert page.texts_of("data-reading-time") == [f"{guide.minutes} min read"]
    index = Elements(client.get("/learn").text)
    assert f"{guide.minutes} min read" in index.texts_of("data-reading-time")


@pytest.mark.parametrize("guide", GUIDES.values(), ids=lambda g: g.slug)
def test_listen_is_hidden_until_the_script_finds_the_speech_api(client, guide):
    page = Elements(client.get(guide.url).text)
    [controls] = page.having("data-listen")
    assert "hidden" in controls
    assert page.having("data-listen-toggle") and page.having("data-listen-source")
    assert any(a.get("src") == entry_module("guide.js") for tag, a in page.tags if tag == "script")
    assert 'import "./listen.js";' in (STATIC_DIR / "js" / "guide.js").read_text()


@pytest.mark.parametrize("guide", GUIDES.values(), ids=lambda g: g.slug)
def test_each_guide_ends_with_the_quiz_and_its_related_guides(client, guide):
    page = Elements(client.get(guide.url).text)
    quiz = [a["href"] for a in page.having("data-next") if a["data-next"] == "quiz"]
    related = [a["href"] for a in page.having("data-next") if a["data-next"] == "guide"]
    assert quiz == ["/quiz"] and client.get("/quiz").status_code == 200
    assert related == [GUIDES[slug].url for slug in guide.related]


# -- figures ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", GUIDE_URLS)
def test_every_figure_points_at_a_real_fragment_and_links_it_without_javascript(client, url):
    page = Elements(client.get(url).text)
    figures = page.having("data-figure-src")
    assert figures
    for figure in figures:
        src = figure["data-figure-src"]
        assert figure["data-hx-get"] == src
        assert src in {a["href"] for tag, a in page.tags if tag == "a"}  # the link that works with JS off
        fragment = client.get(src, headers=HX)
        assert fragment.status_code == 200, src
        assert "<html" not in fragment.text


@pytest.mark.parametrize("url", ["/learn/number-formats", "/learn/mixed-precision-training", "/learn/quantisation"])
def test_each_guide_loads_a_visualiser_with_flippable_bits(client, url):
    page = Elements(client.get(url).text)
    # loaded (with the visualiser's script) when the reader scrolls to it
    [figure] = [a for a in page.having("data-hx-trigger") if a["data-hx-trigger"] == "intersect once"]
    src = figure["data-hx-get"]
    assert src.startswith("/visualise/")
    assert re.search(r"/static/[0-9a-f]{12}/(bundle|js)/visualiser\.js$", figure["data-figure-module"])
    assert client.get(figure["data-figure-module"]).status_code == 200
    fragment = Elements(client.get(src, headers=HX).text)
    assert fragment.having("data-bit-grid") and fragment.having("data-bit")
    assert page.having("data-announce")


def test_the_inline_figures_say_what_the_core_computes(client):
    bf16 = encode(FORMATS["bfloat16"], parse_number("0.1")).encoding.value.exact_string()
    fp16 = encode(FORMATS["float16"], parse_number("1e-8")).encoding.value.exact_string()
    assert bf16 == "0.10009765625" and bf16 in client.get("/learn/number-formats").text
    assert fp16 == "0" and "stored as zero" in client.get("/learn/mixed-precision-training").text
    compare = Elements(client.get("/compare?value=70000", headers=HX).text)
    rows = [a["data-format"] for tag, a in compare.tags if tag == "tr" and "data-format" in a]
    stored = dict(zip(rows, compare.texts_of("data-stored")[:len(rows)], strict=True))  # the scalar table first
    assert stored["float16"] == "inf" and stored["float8_e5m2"] == "inf" and stored["float8_e4m3fn"] == "nan"
    assert stored["bfloat16"] == "70144" and "BF16 stores 70144" in client.get("/learn/number-formats").text


def test_the_training_figure_runs_the_scenario_it_describes(client):
    page = Elements(client.get("/learn/mixed-precision-training").text)
    [run] = [a["data-figure-src"] for a in page.having("data-figure-src") if a["data-figure-src"].startswith("/train")]
    query = urlsplit(run).query
    assert "scenario=tiny_gradients" in query and "run=1" in query
    results = Elements(client.get(run, headers=HX).text)
    assert {a["data-chart-svg"] for a in results.having("data-chart-svg")} >= {"loss"}
    assert {a["data-recipe"] for tag, a in results.tags if tag == "tr" and "data-recipe" in a} >= {
        "fp16_no_scaling", "fp16_dynamic_scaling", "bf16"}


# -- the numbers the guides state, recomputed from the cores ---------------------------------------


def test_number_formats_states_the_cores_constants(client):
    text = client.get("/learn/number-formats").text
    f16, e4m3, e5m2 = FORMATS["float16"], FORMATS["float8_e4m3fn"], FORMATS["float8_e5m2"]
    for spec in (f16, e4m3, e5m2, FORMATS["float6_e2m3fn"], FORMATS["float6_e3m2fn"]):
        assert f"{float(spec.max):g}" in text
    assert (f16.max, e4m3.max, e5m2.max) == (65504, 448, 57344)
    assert encode(f16, parse_number("65520")).encoding.cls == "inf"
    assert encode(f16, parse_number("65519")).encoding.value.exact_string() == "65504"
    assert "anything from 65520 up rounds to infinity" in text
    assert power(exponent_of(f16.min_normal)) == power(-14) and power(-14) in text
    assert power(exponent_of(f16.min_subnormal)) == power(-24) and power(-24) in text
    assert power(exponent_of(e4m3.min_normal)) in text and power(exponent_of(e4m3.min_subnormal)) in text
    assert power(exponent_of(e5m2.min_subnormal)) in text
    bf16, tf32 = FORMATS["bfloat16"], FORMATS["tfloat32"]
    assert (bf16.exponent_bits, bf16.mantissa_bits) == (8, 7) and "8 exponent and 7 mantissa bits" in text
    assert (tf32.sign_bits, tf32.exponent_bits, tf32.mantissa_bits) == (1, 8, 10)
    assert "FP32's 8 exponent bits and 10 mantissa bits" in text
    assert bf16.epsilon == Fraction(1, 128) and power(-7) + " = 0.0078125" in text
    assert float(FORMATS["mxfp4"].bits_per_value) == 4.25 and "MXFP4 costs 4.25 bits" in text
    assert float(FORMATS["nvfp4"].bits_per_value) == 4.5 and "4.5 bits per\n  value" in text
    fp4 = FORMATS["float4_e2m1fn"]
    magnitudes = sorted({abs(decode(fp4, bits).value.to_float()) for bits in range(1 << fp4.bits)})
    assert ", ".join(f"{m:g}" for m in magnitudes[:-1]) + f" and {magnitudes[-1]:g}" == "0, 0.5, 1, 1.5, 2, 3, 4 and 6"
    assert "0, 0.5, 1, 1.5, 2, 3, 4 and 6" in text
    assert "FP6 E2M3 reaches 7.5 and FP6 E3M2 28" in text
    assert encode(f16, parse_number("2049")).encoding.value.exact_string() == "2048"


def test_the_range_table_is_computed_from_the_registry(client):
    page = Elements(client.get("/learn/number-formats").text)
    rows = [a["data-format"] for tag, a in page.tags if tag == "tr" and "data-format" in a]
    maxima = dict(zip(rows, page.texts_of("data-max"), strict=True))
    assert maxima["float16"] == "65504" and maxima["float8_e4m3fn"] == "448" and maxima["float8_e5m2"] == "57344"
    assert maxima["float32"].startswith("≈3.403e+38")


def test_mixed_precision_states_the_cores_bytes_and_the_scalers_defaults(client):
    text = client.get("/learn/mixed-precision-training").text
    fp32, mixed = bytes_per_param(RECIPES["fp32"], "adam"), bytes_per_param(RECIPES["fp16_dynamic_scaling"], "adam")
    assert (fp32["weights"], fp32["gradients"], fp32["optimizer_states"], fp32["total"]) == (4, 4, 8, 16)
    assert (mixed["weights"], mixed["master_weights"], mixed["gradients"], mixed["total"]) == (2, 4, 2, 16)
    assert "4 for the weights, 4 for the gradients and 8 for Adam's two\n  moments, 16 in all" in text
    assert "2 for the 16-bit weights, 4 for the FP32 master copy, 2 for the gradients" in text
    assert power(16) + " = 65536" in text and "2000 steps" in text
    assert power(exponent_of(FORMATS["float16"].min_subnormal)) in text
    in_range = [encode(FORMATS[f], parse_number("0.3")).encoding for f in ("bfloat16", "float16")]
    assert [exponent_of(ulp(enc)) for enc in in_range] == [-9, -12]
    assert f"BF16 values are {power(-9)} apart and FP16 values {power(-12)}" in text


def test_quantisation_states_the_memory_of_a_7b_model(client):
    text = client.get("/learn/quantisation").text
    gigabytes = {f: 7e9 * float(FORMATS[f].bytes_per_value) / 1e9 for f in ("float16", "int8", "int4")}
    assert gigabytes == {"float16": 14, "int8": 7, "int4": 3.5}
    assert "14 GB in FP16, 7 GB in INT8 and 3.5 GB in INT4" in text
    assert (FORMATS["int8"].lowest, FORMATS["int8"].max, FORMATS["int4"].lowest, FORMATS["int4"].max) == (
        -128, 127, -8, 7)
    assert "INT8 holds\n  −128 to 127 and INT4 −8 to 7" in text


# -- the live quantisation table ------------------------------------------------------------------


def _core_stored(x: np.ndarray, format_id: str, scaling: str) -> np.ndarray:
    """The same measurement, straight from the core, for the test to compare with."""
    if scaling == "block":
        return quantize_blocks(list(x), format_id).dequantized
    spec = FORMATS[format_id]
    if scaling == "direct":
        return round_to_format(x, spec).astype(np.float64)
    step = np.abs(x).max() / float(spec.max)
    return round_to_format(x / step, spec, saturate=True).astype(np.float64) * step


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
@pytest.mark.parametrize("scale", ["1e-6", "1", "1000"])
def test_the_live_table_shows_what_the_core_computes(client, distribution, scale):
    response = client.get(f"/learn/quantisation?distribution={distribution}&scale={scale}", headers=HX)
    assert response.status_code == 200
    page = Elements(response.text)
    rows = [a["data-format"] for tag, a in page.tags if tag == "tr" and "data-format" in a]
    assert rows == [format_id for format_id, _ in MEASURED_FORMATS]
    x = sample_tensor(distribution, scale)
    assert len(x) == SAMPLE_SIZE
    mses, shown = page.having("data-mse"), page.texts_of("data-mse")
    for (format_id, scaling), cell, text in zip(MEASURED_FORMATS, mses, shown, strict=True):
        stored = _core_stored(x, format_id, scaling)
        if not np.isfinite(stored).all():
            assert cell["data-mse"] == "None" and text == "—"
            continue
        mse = float(np.mean((stored - x) ** 2))
        assert float(cell["data-mse"]) == pytest.approx(mse, rel=1e-12)
        assert text == approx(float(cell["data-mse"]), 3)
        if scaling == "block":
            # the core's MSE is against the sample rounded to FP32 (2^-24 of each value), the table's against x
            assert float(cell["data-mse"]) == pytest.approx(quantize_blocks(list(x), format_id).mse, rel=1e-4)


def test_the_claims_next_to_the_live_table_hold():
    def by_format(distribution, scale):
        return {m.format_id: m for m in measure_formats(distribution, scale)}

    large, tiny, outliers = by_format("normal", "1000"), by_format("normal", "1e-6"), by_format("outliers", "1")
    assert large["float8_e4m3fn"].non_finite > 0
    unit = by_format("normal", "1")
    for format_id in ("mxfp8_e4m3", "mxfp4", "nvfp4", "nf4"):
        assert large[format_id].rel_rms_error == pytest.approx(unit[format_id].rel_rms_error, rel=0.1)
    assert tiny["float8_e4m3fn"].zeroed > SAMPLE_SIZE / 2 and tiny["float8_e5m2"].zeroed > SAMPLE_SIZE / 2
    assert outliers["int8"].zeroed > SAMPLE_SIZE / 2 and outliers["mxint8"].zeroed < SAMPLE_SIZE / 10


def test_the_live_table_form_works_without_javascript(client):
    page = Elements(client.get("/learn/quantisation?distribution=outliers&scale=1000").text)
    [form] = [a for tag, a in page.tags if tag == "form" and a.get("data-hx-get") == "/learn/quantisation"]
    assert form["method"] == "get" and form["action"].startswith("/learn/quantisation")
    selected = [a["value"] for tag, a in page.tags if tag == "option" and "selected" in a]
    assert selected == ["outliers", "1000"]
    assert {a["value"] for tag, a in page.tags if tag == "option"} == set(DISTRIBUTIONS) | set(SCALES)


@pytest.mark.parametrize("query", ["distribution=cauchy", "scale=2", "scale=<b>"])
def test_a_bad_choice_is_a_422_with_a_sentence(client, query):
    for headers in ({}, HX):
        response = client.get(f"/learn/quantisation?{query}", headers=headers)
        assert response.status_code == 422
        assert "Choose a distribution" in response.text and "<b>" not in response.text


# -- glossary and index ---------------------------------------------------------------------------


def test_the_glossary_has_an_entry_per_term_with_a_unique_anchor(client):
    page = Elements(client.get("/learn/glossary").text)
    terms = [a["id"] for a in page.having("data-term")]
    assert len(terms) >= 30
    assert len(page.ids()) == len(set(page.ids()))
    for needed in ("sign-bit", "exponent", "bias", "mantissa", "subnormal", "ulp", "epsilon", "nan", "infinity",
                   "saturation", "round-to-nearest-even", "stochastic-rounding", "fp32", "tf32", "fp16", "bf16",
                   "fp8-e4m3", "fp8-e5m2", "fnuz", "e8m0", "mx", "nvfp4", "nf4", "int8", "loss-scaling",
                   "dynamic-loss-scaler", "master-weights", "autocast", "underflow", "overflow", "amax",
                   "delayed-scaling", "quantisation", "ptq", "qat", "block-scaling", "zero-optimizer"):
        assert needed in terms


def test_every_glossary_link_resolves_and_its_anchor_exists(client):
    page = Elements(client.get("/learn/glossary").text)
    links = [a["href"] for a in page.having("data-shown")]
    assert len(links) >= 30
    pages: dict[str, Elements] = {}
    for href in set(links):
        target, _, anchor = href.partition("#")
        response = client.get(target)
        assert response.status_code == 200, href
        if anchor:
            pages.setdefault(target, Elements(response.text))
            assert anchor in pages[target].ids(), href


def test_every_term_links_to_where_it_is_shown(client):
    entries = client.get("/learn/glossary").text.split("data-term>")[1:]
    assert entries and all("data-shown" in entry for entry in entries)


def test_the_index_lists_every_guide_and_the_reference_pages(client):
    page = Elements(client.get("/learn").text)
    hrefs = {a["href"] for tag, a in page.tags if tag == "a" and a["href"].startswith("/")}
    assert {g.url for g in GUIDES.values()} | {"/learn/glossary", "/learn/memory", "/learn/hardware"} <= hrefs
    for href in hrefs:
        assert client.get(href).status_code == 200, href


def test_the_site_links_the_guides(client):
    home = Elements(client.get("/").text)
    assert "/learn" in {a["href"] for tag, a in home.tags if tag == "a"}
    guide = Elements(client.get("/learn/quantisation").text)
    assert [a.get("aria-current") for tag, a in guide.tags if tag == "a" and a.get("href") == "/learn"][0] == "page"


# -- the edges of each format's range, where FP8 came from, and the training sections -------------


MP = "/learn/mixed-precision-training"


def prose(html: str) -> str:
    """The page's source with every run of white space made one space, so sentences match across line breaks."""
    return " ".join(html.split())


def section(html: str, section_id: str) -> str:
    start = html.index(f'<section aria-labelledby="{section_id}">')
    return prose(html[start:html.index("</section>", start)])


def about(x: Fraction | float, digits: int) -> str:
    """x as the guides write a rounded power of ten: ≈ 2.98 × 10<sup>−8</sup>."""
    mantissa, exponent = f"{float(x):.{digits}e}".split("e")
    return f"{mantissa} × 10<sup>{int(exponent)}</sup>".replace("-", "−")


def stored(spec, x: Fraction | float | str, **how) -> Fraction | str:
    """What the core stores for x: the exact value, or 'inf' or 'nan'."""
    value = parse_number(x) if isinstance(x, str) else Real.of(Fraction(x))
    enc = encode(spec, value, **how).encoding
    return enc.value.fraction if enc.cls not in ("inf", "nan") else enc.cls


def spacing(spec, x: Fraction | float) -> Fraction:
    """The ULP of x in the format: the gap to the next value of larger magnitude."""
    gap = ulp(encode(spec, Real.of(Fraction(x))).encoding)
    assert gap is not None
    return gap


def visualised(client, url: str) -> str:
    return Elements(client.get(url, headers=HX).text).texts_of("data-stored")[0]


def term_text(client, term_id: str) -> str:
    """The source of one glossary entry, white space made single."""
    html = client.get("/learn/glossary").text
    start = html.index(f'<div class="term" id="{term_id}"')
    return prose(html[start:html.index("</div>", start)])


def toc_anchors(html: str) -> list[str]:
    start = html.index('<nav class="toc"')
    return re.findall(r'href="#([^"]+)"', html[start:html.index("</nav>", start)])


@pytest.mark.parametrize("url", GUIDE_URLS)
def test_each_guides_table_of_contents_lists_its_sections_in_order(client, url):
    html = client.get(url).text
    page = Elements(html)
    sections = [a["aria-labelledby"] for tag, a in page.tags if tag == "section"]
    assert toc_anchors(html) == sections
    headings = [a["id"] for tag, a in page.tags if tag == "h2" and "id" in a]
    assert set(sections) <= set(headings)


@pytest.mark.parametrize("url", GUIDE_URLS)
def test_every_link_in_a_guide_resolves_and_its_anchor_exists(client, url):
    page = Elements(client.get(url).text)
    hrefs = {a["href"] for tag, a in page.tags if tag == "a" and a.get("href", "").startswith(("/", "#"))}
    for href in hrefs:
        target, _, anchor = href.partition("#")
        response = client.get(target or url)
        assert response.status_code == 200, href
        if anchor and anchor != "main":
            assert anchor in Elements(response.text).ids(), href


def test_the_new_training_sections_are_in_the_table_of_contents(client):
    html = client.get(MP).text
    page = Elements(html)
    sections = toc_anchors(html)
    for new in ("fp16-accumulation", "optimizer-states", "stochastic-rounding", "fp8-scaling"):
        assert new in sections and new in page.ids()
    assert sections.index("fp8-scaling") == sections.index("fp8") + 1
    assert sections.index("fp16-accumulation") == sections.index("accumulation") + 1
    assert sections[-2:] == ["next-steps", "faq"]


def test_fp8_is_credited_to_the_2022_paper_and_ofp8_to_2023(client):
    text = prose(client.get("/learn/number-formats").text)
    assert "published by NVIDIA, Arm and Intel in 2022" not in text
    assert "proposed by NVIDIA, Arm and Intel in the 2022 paper “FP8 Formats for Deep Learning”" in text
    assert "(Micikevicius et al., arXiv:2209.05433)" in text
    assert "OCP 8-bit Floating Point Specification (OFP8, revision 1.0) of 2023" in text
    assert "Open Compute Project" in text and "AMD, Arm, Google, Intel, Meta and NVIDIA" in text


def test_e4m3_overflow_is_told_as_each_library_does_it(client):
    e4m3 = get_format("float8_e4m3fn")
    beyond = e4m3.max + spacing(e4m3, e4m3.max)
    midpoint = (e4m3.max + beyond) / 2
    assert (e4m3.max, beyond, midpoint) == (448, 480, 464)
    assert decode(e4m3, 0x7F).cls == "nan"
    assert stored(e4m3, midpoint) == 448 and stored(e4m3, midpoint + Fraction(1, 2**20)) == "nan"
    assert stored(e4m3, "470") == "nan" and stored(e4m3, "470", overflow="saturate") == 448
    assert visualised(client, "/visualise/float8_e4m3fn?value=470") == "nan"
    assert visualised(client, "/visualise/float8_e4m3fn?value=470&overflow=saturate") == "448"
    text = prose(client.get("/learn/number-formats").text)
    assert "value past E4M3's max" not in text
    assert (f"Values up to {midpoint}, the midpoint between {e4m3.max} and the {beyond} that the NaN pattern 0x7f"
            in text)
    assert f"values above {midpoint}" in text and "become NaN" in text
    # The PyTorch claim is run (tests/unit/formats/test_format_edges.py casts with the pinned torch); the earlier
    # versions' NaN and Transformer Engine's __NV_SATFINITE are cited, and the page says so
    assert "PyTorch's <code>.to(torch.float8_e4m3fn)</code> saturates to ±448 since PyTorch 2.12" in text
    assert "(run here with 2.13, the version this project pins)" in text
    assert "Earlier versions gave NaN from 480 up" in text
    assert "Transformer Engine saturates too" in text
    assert "__NV_SATFINITE</code> (cited from its source, not run here)" in text
    assert "a conversion may saturate to the largest value or not (its saturation mode)" in text
    assert 'href="/visualise/float8_e4m3fn?value=470"' in text
    assert 'href="/visualise/float8_e4m3fn?value=470&amp;overflow=saturate"' in text
    assert "NaN as ml_dtypes casts it (PyTorch's cast saturates to 448 since PyTorch 2.12)" in text
    assert f"values above {midpoint}" in term_text(client, "nan")
    saturation = term_text(client, "saturation")
    assert "float8_e4m3fn (since PyTorch 2.12) and Transformer Engine saturate to ±448" in saturation
    assert "448 (PyTorch since 2.12, Transformer Engine)" in term_text(client, "fp8-e4m3")
    assert f"Past {midpoint} a cast gives NaN (ml_dtypes) or, saturating, 448" in term_text(client, "fp8-e4m3")
    quantisation = prose(client.get("/learn/quantisation").text)
    assert "past 448 into NaN" not in quantisation
    assert f"values above {midpoint} into NaN (a saturating cast, as PyTorch's since 2.12, would store 448)" \
        in quantisation


def test_e5m2_overflows_to_infinity_from_the_midpoint_above_its_max(client):
    e5m2 = get_format("float8_e5m2")
    midpoint = e5m2.max + spacing(e5m2, e5m2.max) / 2
    assert midpoint == 61440
    assert stored(e5m2, midpoint) == "inf" and stored(e5m2, midpoint - 1) == e5m2.max
    text = prose(client.get("/learn/number-formats").text)
    assert (f'give infinity from <a href="/visualise/float8_e5m2?value={midpoint}">{midpoint}</a>, the midpoint above '
            f"{e5m2.max}, up") in text


def test_fp16_underflow_starts_at_half_the_smallest_subnormal(client):
    f16 = get_format("float16")
    assert f16.min_subnormal is not None
    half = f16.min_subnormal / 2
    assert exponent_of(half) == -25
    assert stored(f16, half) == 0  # a tie, and 0 is the even neighbour
    assert stored(f16, half + Fraction(1, 2**40)) == f16.min_subnormal
    assert stored(f16, "4e-8") == f16.min_subnormal and stored(f16, "0x1p-25") == 0
    for url in ("/learn/number-formats", MP):
        text = prose(client.get(url).text)
        assert f"{power(-24)} ≈ {about(f16.min_subnormal, 2)}" in text
        assert "at or below half of" in text and f"{power(-25)} ≈ {about(half, 2)}" in text
        assert f"({power(-25)} itself is a tie and goes to the even neighbour, 0)" in text
        assert f"between {power(-25)} and {power(-24)}" in text and f"rounds up to {power(-24)}" in text
        assert "A gradient below half of that rounds to zero" not in text
        assert "Smaller gradients round to zero" not in text
    assert f"values at or below {power(-25)} round to zero" in term_text(client, "fp16")


def test_tf32_loses_fp32s_top_and_bottom_edges(client):
    tf32, f32, bf16 = get_format("tfloat32"), get_format("float32"), get_format("bfloat16")
    assert tf32.max == (2 - Fraction(1, 2**10)) * 2**127 and f32.max == (2 - Fraction(1, 2**23)) * 2**127
    threshold = (2 - Fraction(1, 2**11)) * 2**127
    below = threshold - spacing(f32, threshold)
    assert stored(f32, below) == below  # the largest FP32 value that TF32 still holds as finite
    assert stored(tf32, threshold) == "inf" and stored(tf32, f32.max) == "inf" and stored(tf32, below) == tf32.max
    assert stored(bf16, threshold) == "inf"
    assert tf32.min_subnormal == Fraction(1, 2**136) and f32.min_subnormal == Fraction(1, 2**149)
    assert stored(tf32, Fraction(1, 2**137)) == 0
    assert stored(tf32, Fraction(1, 2**137) + f32.min_subnormal) == tf32.min_subnormal
    assert visualised(client, "/visualise/tfloat32?value=0x1.fffffep127") == "inf"
    text = prose(client.get("/learn/number-formats").text)
    assert "nothing overflows or underflows that would not in FP32" not in text
    assert f"(2 − {power(-10)}) × {power(127)} ≈ {about(tf32.max, 4)}" in text
    assert f"(2 − {power(-23)}) × {power(127)} ≈ {about(f32.max, 4)}" in text
    assert f"from (2 − {power(-11)}) × {power(127)} ≈ {about(threshold, 4)} up, FP32's largest value included" in text
    assert f"≈{about(bf16.max, 4)}" in text
    assert f"smallest subnormal is {power(-136)}" in text and f"at or below {power(-137)} round to zero" in text
    assert power(-149) in text and "flush subnormals" in text
    glossary = term_text(client, "tf32")
    assert "with FP32's range" not in glossary
    assert f"≈{about(tf32.max, 4)}" in glossary and f"≈{about(threshold, 4)}" in glossary


def test_the_stochastic_rounding_entry_weighs_each_neighbour_by_the_other(client):
    entry = term_text(client, "stochastic-rounding")
    assert "proportional to the distance to each neighbour" not in entry
    assert "proportional to the distance to the other neighbour" in entry
    assert "(x − lo)/(hi − lo)" in entry and "(hi − x)/(hi − lo)" in entry and "exactly x" in entry
    links = {a["href"] for a in Elements(client.get("/learn/glossary").text).having("data-shown")}
    assert f"{MP}#stochastic-rounding" in links


def test_the_stochastic_rounding_section_states_what_the_core_does(client):
    bf16 = get_format("bfloat16")
    x = parse_number("1.001")
    below = encode(bf16, x, rounding="toward_zero").encoding
    above = next_up(below)
    assert above is not None
    lo, hi = below.value.fraction, above.value.fraction
    up = (x.fraction - lo) / (hi - lo)
    assert (lo, hi, up) == (1, 1 + Fraction(1, 128), Fraction(128, 1000))
    assert stored(bf16, "1.001") == 1  # round to nearest loses the update, every time
    runs = [stored(bf16, "1.001", rounding="stochastic", seed=seed) for seed in range(1000)]
    ups, downs = runs.count(hi), runs.count(lo)
    assert ups + downs == len(runs)
    assert abs(ups / len(runs) - 1 / 8) < 0.03  # "about one seed in eight"
    assert abs(float((ups * hi + downs * lo) / len(runs)) - 1.001) < 4e-4  # unbiased: the mean follows x
    assert runs[1] == 1 and visualised(client, "/visualise/bfloat16?value=1.001&rounding=stochastic&seed=1") == "1"
    text = section(client.get(MP).text, "stochastic-rounding")
    assert "proportional to the distance to the other neighbour" in text
    assert f"1 + {power(-7)} = 1.0078125" in text and f"0.001/{power(-7)} = {float(up):g}" in text
    assert "is stored as 1 with seed 1" in text and "about one seed in eight gives 1.0078125" in text
    assert 'href="/visualise/bfloat16?value=1.001&amp;rounding=stochastic&amp;seed=1"' in text
    assert "arXiv:1502.02551" in text and "Zamirai et al. (2020)" in text
    assert 'href="/learn/glossary#stochastic-rounding"' in text


def _published(accelerator_id: str) -> dict:
    """An accelerator as data/hardware/published_peaks.json has it, read directly, not through the page's loader."""
    document = json.loads((DATA_DIR / "published_peaks.json").read_text(encoding="utf-8"))
    return next(a for a in document["accelerators"] if a["id"] == accelerator_id)


def test_the_fp16_accumulation_section_states_the_trade(client):
    f16 = get_format("float16")
    assert spacing(f16, 2048) == 2 and stored(f16, "2049") == 2048
    text = section(client.get(MP).text, "fp16-accumulation")
    assert "<code>CUBLAS_COMPUTE_16F</code>" in text
    rtx = {p["label"]: p for p in _published("rtx-4090")["peaks"]}
    fp16_acc, fp32_acc = (rtx[f"FP16 Tensor Core, {a} accumulate"] for a in ("FP16", "FP32"))
    assert {fp16_acc["dense"], fp32_acc["dense"]} == {330.3, 165.2}  # Appendix A's rows, not the TF32 row's 82.6
    assert all("Ada GPU Architecture whitepaper, Appendix A" in p["source"] for p in (fp16_acc, fp32_acc))
    assert round(fp16_acc["dense"] / fp32_acc["dense"]) == 2 and "twice the rate" in text
    assert (f"RTX 4090 {fp16_acc['dense']} dense TFLOP/s in FP16 with FP16 accumulation, against {fp32_acc['dense']} "
            "with FP32") in text
    assert "“NVIDIA ADA GPU Architecture” whitepaper (Appendix A)" in text
    assert "same peak rate as FP32 accumulation" in text
    for switch, default in (("allow_fp16_accumulation", "False"), ("allow_fp16_reduced_precision_reduction", "True")):
        assert re.search(rf"{switch}[^.]*{default} by default", text), switch
    assert "split-K" in text and "<code>allow_bf16_reduced_precision_reduction</code>" in text
    assert "has reached 2048 can no longer add 1, because the spacing there is 2" in text
    assert 'href="/visualise/float16?value=2049">2049 is stored as 2048' in text
    assert "swamping" in text and "for inference" in text


def test_the_fp8_scaling_section_names_each_way_and_its_source(client):
    assert "fp8_hybrid_delayed" in RECIPES
    text = section(client.get(MP).text, "fp8-scaling")
    assert "<code>fp8_hybrid_delayed</code>" in text and "amax history of earlier steps" in text
    assert "<code>Float8CurrentScaling</code>" in text and "one extra pass" in text
    assert "DeepSeek-V3 (DeepSeek-AI, 2024, arXiv:2412.19437)" in text
    assert "E4M3 for all its FP8 tensors, forward and backward" in text
    assert "per 1 × 128 tile" in text and "per 128 × 128 block" in text
    assert "about 14 bits" in text and "every 128 elements of the inner dimension" in text
    assert FORMATS["mxfp8_e4m3"].block_size == 32 and "32 elements share one E8M0 power-of-two scale" in text
    e5m2 = get_format("float8_e5m2")
    assert e5m2.mantissa_bits == 2 and e5m2.epsilon == Fraction(1, 4)  # so half an ULP is 1/8 of a value at most
    assert f"E5M2 has 2 mantissa bits, so its relative rounding error is up to {power(-3)} = 12.5%" in text
    assert "arXiv:2209.05433" in text and "E4M3 throughout" in text
    assert "<code>Float8BlockScaling</code> is DeepSeek-V3's scheme" in text
    assert "<code>MXFP8BlockScaling</code> is MXFP8 (blocks of 32 with E8M0" in text


def test_the_optimizer_states_section_counts_bytes_the_core_agrees_with(client):
    nbytes = {f: int(FORMATS[f].bytes_per_value) for f in ("int8", "bfloat16", "float32")}
    assert bytes_per_param(RECIPES["fp32"], "adam")["optimizer_states"] == 2 * nbytes["float32"] == 8
    bf16 = bytes_per_param(RECIPES["bf16"], "adam")
    assert bf16["weights"] + bf16["master_weights"] == nbytes["bfloat16"] + nbytes["float32"] == 6
    assert {"bf16", "bf16_no_master"} <= set(RECIPES)
    text = section(client.get(MP).text, "optimizer-states")
    assert f"Both moments then take {2 * nbytes['int8']} bytes per parameter instead of 8" in text
    assert f"{2 * nbytes['bfloat16']} bytes for both instead of 8" in text
    assert (f"{nbytes['bfloat16']} + {nbytes['bfloat16']} = {2 * nbytes['bfloat16']} bytes per parameter, instead of "
            f"{nbytes['bfloat16']} + {nbytes['float32']} = 6") in text
    assert "(Dettmers et al., 2021, “8-bit Optimizers via Block-wise Quantization”, arXiv:2110.02861" in text
    assert "blocks of 2048 values" in text and "absmax scale" in text and "bitsandbytes" in text
    assert "(2020, “Revisiting BFloat16 Training”, arXiv:2010.06192)" in text and "AnyPrecisionAdamW" in text
    assert 'href="/train?scenario=small_updates&amp;recipe=bf16&amp;recipe=bf16_no_master"' in text


def test_the_glossary_links_the_new_sections(client):
    links = {a["href"] for a in Elements(client.get("/learn/glossary").text).having("data-shown")}
    for anchor in ("fp16-accumulation", "optimizer-states", "stochastic-rounding", "fp8-scaling"):
        assert f"{MP}#{anchor}" in links
    terms = [a["id"] for a in Elements(client.get("/learn/glossary").text).having("data-term")]
    assert {"kahan-summation", "eight-bit-optimizer", "current-scaling", "swamping", "fp16-accumulation"} <= set(terms)


def test_nf4_stores_only_an_exact_zero_without_error(client):
    nf4 = get_format("nf4")
    assert 0 in nf4.codebook
    exact, near = encode(nf4, parse_number("0")), encode(nf4, parse_number("0.01"))
    assert exact.error.fraction == 0
    assert near.encoding.value.fraction == 0 and near.error.fraction == Fraction(-1, 100)
    text = prose(client.get("/learn/quantisation").text)
    assert "weights that are exactly zero, such as padding, are stored without error" in text
    assert "a weight close enough to zero rounds to 0, and its error is the weight itself" in text


def test_cpus_that_compute_in_fp16_are_named(client):
    """Cited, not run: Arm's FEAT_FP16 (Armv8.2-A) and Intel's AVX512-FP16 compute in FP16; F16C only converts."""
    text = prose(client.get("/learn/number-formats").text)
    assert "CPUs mostly only convert" not in text
    assert "Arm from Armv8.2-A (FEAT_FP16)" in text and "Intel's AVX512-FP16" in text
    assert "older x86 CPUs only convert to and from it (F16C)" in text


def test_the_zero_paper_is_cited_one_way_everywhere():
    """Rajbhandari et al., “ZeRO: Memory Optimizations Toward Training Trillion Parameter Models”, SC20: 2020, also
    in the quiz banks of every language (the quiz said 2019, the year of its arXiv preprint)."""
    root = Path(__file__).resolve().parents[3]
    sources = [*root.glob("templates/**/*.html"), *root.glob("quiz/**/*.txt")]
    cited = [(path.name, " ".join(text.split())) for path in sources
             if "Rajbhandari" in (text := path.read_text(encoding="utf-8"))]
    assert len(cited) >= 2
    for name, text in cited:
        for citation in re.findall(r"Rajbhandari[^)]*\)", text):
            assert re.fullmatch(r"Rajbhandari[^,()]*, 2020(, SC20, arXiv:1910\.02054)?\)", citation), (name, citation)
