"""The language in the URL (app/web/platform/language_prefix.py, languages.py): every route under every prefix,
what each page says of its language, the first visit's choice from Accept-Language, refused prefixes, the switcher,
and a decimal comma typed on a page in a language that writes one."""

from __future__ import annotations

import random
import re
from html import unescape
from urllib.parse import urlsplit

import pytest
from starlette.routing import BaseRoute, Mount, Route

from app.formats import SCALAR_FORMATS
from app.main import create_app
from app.web.platform.catalogs import catalog_info
from app.web.platform.languages import LANGUAGE_CODES, LANGUAGES, PREFIXED, negotiated, preferred_ranges
from tests.helpers.html import HX, Elements

SERVED = [language.code for language in LANGUAGES]
PREFIXES = [language.prefix for language in LANGUAGES if language.prefix]
# One address of each page route with path parameters, beside every route without (found by walking app.routes)
SAMPLES = [
    "/visualise/float16?value=0.1", "/visualise/bfloat16?bits=0x3dcd", "/visualise/mxfp4?preset=outlier",
    "/visualise/custom?exponent_bits=4&mantissa_bits=3&value=0.1", "/compare?value=0.3952",
    "/embed/visualise/float16?value=0.1", "/embed/compare?value=0.5", "/learn/number-formats",
    "/learn/mixed-precision-training", "/learn/quantisation", "/api/formats/float16",
]
SKIPPED = {"/train/stream", "/metrics"}  # an event stream, and the metrics of the process (not a page)


def found(html: str, tag: str | None = None, having: str | None = None, **where: str) -> list[tuple[dict, str]]:
    """(attributes, text) of every element of the page with that tag, that attribute and those values."""
    page = Elements(html)
    return [(attrs, " ".join(page.texts[i].split())) for i, (name, attrs) in enumerate(page.tags)
            if (tag is None or name == tag) and (having is None or having in attrs)
            and all(attrs.get(key.replace("_", "-")) == value for key, value in where.items())]


def attrs_of(html: str, tag: str | None = None, having: str | None = None, **where: str) -> dict:
    (attrs, _), *_ = found(html, tag, having, **where)
    return attrs


def switcher(html: str) -> dict[str, dict]:
    """The language switcher's links (the machine-draft notice's link to the English page is not one of them)."""
    nav = html.split("data-language-switch", 1)[1].split("</nav>", 1)[0]
    return {attrs["hreflang"]: attrs for attrs, _ in found(nav, "a", "data-language-link")}


def _paths(routes: list[BaseRoute]) -> list[tuple[str, set[str]]]:
    """(path, methods) of every route, those of the included routers too."""
    found: list[tuple[str, set[str]]] = []
    for route in routes:
        if isinstance(route, Route):
            found.append((route.path, set(route.methods or ())))
        elif isinstance(route, Mount):
            found.append((route.path + "/", {"GET"}))
        elif hasattr(route, "original_router"):
            found += _paths(route.original_router.routes)
    return found


ROUTES = _paths(create_app().routes)
PLAIN_GETS = sorted({path for path, methods in ROUTES if "GET" in methods and "{" not in path} - SKIPPED)


def test_the_walk_found_the_routes():
    paths = {path for path, _ in ROUTES}
    assert {"/", "/visualise/{format_id}", "/compare", "/quiz", "/embed/compare", "/oembed"} <= paths


def test_no_route_starts_with_a_language_code():
    """A two-letter language code as a first segment is a language (served or refused), never a page."""
    for path, _ in ROUTES:
        first = path.strip("/").split("/", 1)[0]
        assert first not in LANGUAGE_CODES, f"{path} would be taken for the language {first!r}"
    assert {"tr", "el", "yo", "en", "de"} <= LANGUAGE_CODES and "xx" not in LANGUAGE_CODES


_ENGLISH: dict[str, tuple[int, str]] = {}  # url: (status, content type) of the English answer, asked once


@pytest.mark.parametrize("prefix", PREFIXES)
def test_every_page_is_served_under_every_prefix(client, prefix):
    for url in PLAIN_GETS + SAMPLES:
        if url == "/":
            continue  # the unprefixed home may redirect; tested below
        if url not in _ENGLISH:
            english = client.get(url, follow_redirects=False)
            _ENGLISH[url] = english.status_code, english.headers.get("content-type", "")
        status, content_type = _ENGLISH[url]
        translated = client.get(prefix + url, follow_redirects=False)
        assert translated.status_code == status, url
        if content_type.startswith("text/html"):
            assert translated.headers["content-language"] == prefix[1:], url
            assert attrs_of(translated.text, "html")["lang"] == prefix[1:], url


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_page_says_its_language_and_links_its_alternates(client, language):
    response = client.get(language.prefix + "/visualise/float16?value=0.1")
    assert response.status_code == 200
    assert response.headers["content-language"] == language.code
    assert attrs_of(response.text, "html")["lang"] == language.code
    alternates = {a["hreflang"]: a["href"] for a, _ in found(response.text, "link", "hreflang", rel="alternate")}
    assert set(alternates) == {*SERVED, "x-default"}
    for other in LANGUAGES:
        assert urlsplit(alternates[other.code]).path == other.prefix + "/visualise/float16"
        assert urlsplit(alternates[other.code]).query == "value=0.1"
    assert alternates["x-default"] == alternates["en"]
    canonical = attrs_of(response.text, "link", rel="canonical")["href"]
    assert urlsplit(canonical).path == language.prefix + "/visualise/float16"


def test_the_home_page_is_translated_and_its_links_keep_the_language(client):
    english, turkish = client.get("/", headers={"accept-language": "en"}), client.get("/tr/")
    assert turkish.status_code == 200
    assert "Bir formatı görselleştirin" in turkish.text and "Visualise one format" not in turkish.text
    assert attrs_of(turkish.text, "main")["lang"] == "tr"
    site_links = [a["href"] for a, _ in found(turkish.text, "a", "href")
                  if a["href"].startswith("/") and "data-language-link" not in a and a["href"] != "/openapi.json"]
    assert len(site_links) > 15 and all(href.startswith("/tr/") for href in site_links), site_links
    assert "Visualise one format" in english.text


@pytest.mark.parametrize("url", ["/formats", "/quiz", "/train", "/visualise/float16?value=0.1", "/learn/glossary"])
def test_a_translated_page_says_its_content_is_in_its_language(client, url):
    # base.html marks <main> English unless a page says its content is translated (content_language)
    assert attrs_of(client.get(url).text, "main")["lang"] == "en"
    for prefix in PREFIXES:
        page = client.get(prefix + url).text
        assert attrs_of(page, "html")["lang"] == attrs_of(page, "main")["lang"] == prefix[1:]


@pytest.mark.parametrize("url", ["/formats", "/visualise/float16?value=0.1&rounding=toward_zero", "/learn/glossary",
                                 "/embed/visualise/float16?value=0.1", "/embed/compare?value=0.3", "/embed/train"])
def test_a_translated_page_or_embed_says_first_that_it_is_an_unreviewed_machine_draft(client, url):
    assert "data-translation-note" not in client.get(url).text
    for prefix in PREFIXES:
        page = client.get(prefix + url).text
        assert not catalog_info(prefix[1:]).reviewed  # each catalog's header says so (tests/unit/test_catalogs.py)
        (attributes, note), = found(page, having="data-translation-note")
        body = page.split("<body>", 1)[1]
        # one line at the top: nothing of the page's own comes before it but the header (or a frame's switcher)
        assert body.index("data-translation-note") < body.index("<main")
        assert note and "English page" not in note and "reviewed" not in note  # in the page's language
        line = page.split("data-translation-note", 1)[1].split("</p>")[0]
        (link,) = re.findall(r'<a href="([^"]*)" hreflang="en"', line)
        assert unescape(link) == url  # the same page, in the same state, in English
        assert "data-translation-note" not in page.split("</main>", 1)[1]  # and not again in the footer


# -- the switcher -------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/visualise/float16?value=0.1&rounding=toward_zero", "/compare?value=0.3952",
                                 "/embed/visualise/float16?value=0.1", "/formats"])
def test_the_switcher_keeps_the_path_and_the_query(client, url):
    for here in LANGUAGES:
        links = switcher(client.get(here.prefix + url).text)
        assert list(links) == SERVED
        for language in LANGUAGES:
            assert links[language.code]["href"] == language.prefix + url
            assert links[language.code]["lang"] == language.code
        assert [code for code, a in links.items() if a.get("aria-current") == "true"] == [here.code]


def test_the_home_switcher_remembers_the_choice(client):
    links = switcher(client.get("/tr/").text)
    assert links["en"]["href"] == "/?lang=en"
    chosen = client.get(links["en"]["href"], headers={"accept-language": "tr"}, follow_redirects=False)
    assert chosen.status_code == 200 and 'lang="en"' in chosen.text
    assert "lang=en" in chosen.headers["set-cookie"]
    # the browser sends the cookie back: English from now on, although it prefers Turkish
    again = client.get("/", headers={"accept-language": "tr"}, follow_redirects=False)
    assert again.status_code == 200
    went = client.get("/?lang=el", follow_redirects=False)
    assert went.status_code == 303 and went.headers["location"] == "/el/"
    assert client.get("/", headers={"accept-language": "en"}, follow_redirects=False).headers["location"] == "/el/"


# -- the first visit -----------------------------------------------------------------------------


@pytest.mark.parametrize(("header", "expected"), [
    ("tr-TR,tr;q=0.9,en-US;q=0.8,en;q=0.7", "/tr/"), ("el", "/el/"), ("yo-NG", "/yo/"), ("de, el;q=0.5", "/el/"),
    ("en-GB,tr;q=0.9", None), ("fr, de", None), ("*", None), ("tr;q=0, el;q=0.1", "/el/"), ("TR", "/tr/"),
    ("el;q=0.2, yo;q=0.9", "/yo/"), (None, None),
])
def test_the_first_visit_to_the_home_page_follows_accept_language(client, header, expected):
    headers = {"accept-language": header} if header is not None else {}
    response = client.get("/", headers=headers, follow_redirects=False)
    assert {"Accept-Language", "Cookie"} <= {v.strip() for v in response.headers["vary"].split(",")}
    if expected is None:
        assert response.status_code == 200 and 'lang="en"' in response.text
    else:
        assert response.status_code == 303 and response.headers["location"] == expected


def test_only_the_home_page_is_redirected(client):
    response = client.get("/formats", headers={"accept-language": "tr"}, follow_redirects=False)
    assert response.status_code == 200 and response.headers["content-language"] == "en"
    assert "Accept-Language" not in response.headers.get("vary", "")
    assert client.get("/", headers={"accept-language": "tr", **HX}, follow_redirects=False).status_code == 200


def test_malformed_accept_language_gets_english_and_never_fails(client):
    rng = random.Random(13)
    alphabet = "abcdefghijklmnopqrstuvwxyzTRELYO-_;=,.*q01 \t\x7f\u00e9\u0130\u03b1'\"\\"
    headers = ["", ";", ",,,", "q=1", "tr;q=", "tr;q=2", "tr;q=abc", "tr;q=-1", "tr;;;", "-tr", "tr-", "x" * 5000,
               ",".join(["zz"] * 500) + ",tr", "tr;q=0.5;q=0.9", "\u00e9l", "tr\x00"]
    headers += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 60))) for _ in range(200)]
    for header in headers:
        response = client.get("/", headers={"accept-language": header.encode()}, follow_redirects=False)
        assert response.status_code in (200, 303), (header, response.status_code)
        if response.status_code == 303:
            assert response.headers["location"] in {f"{p}/" for p in PREFIXES}
    assert negotiated("tr;q=2") is LANGUAGES[0] and negotiated("tr;q=abc") is LANGUAGES[0]
    assert preferred_ranges("el;q=0.3, tr, yo;q=0.5") == ["tr", "yo", "el"]


# -- refused and redirected prefixes -----------------------------------------------------------------


@pytest.mark.parametrize("path", ["/de/visualise/float16", "/fr/", "/zh/compare?value=1", "/de"])
def test_a_language_not_served_is_refused_with_the_languages_served(client, path):
    response = client.get(path, follow_redirects=False)
    assert response.status_code == 404
    (_, sentence), = found(response.text, having="data-error")
    code = path.split("/")[1]
    assert f"/{code}/" in sentence
    for prefix in PREFIXES:
        assert f"{prefix}/" in sentence


def test_other_short_segments_are_ordinary_missing_pages(client):
    response = client.get("/xx/visualise/float16")
    assert response.status_code == 404 and "There is no page at /xx/visualise/float16" in response.text


def test_a_prefix_without_its_slash_and_the_english_prefix_are_redirected(client):
    assert client.get("/tr", follow_redirects=False).headers["location"] == "/tr/"
    assert client.get("/tr?x=1", follow_redirects=False).headers["location"] == "/tr/?x=1"
    english = client.get("/en/compare?value=2", follow_redirects=False)
    assert english.status_code == 308 and english.headers["location"] == "/compare?value=2"


def test_the_sites_own_redirects_keep_the_language(client):
    response = client.get("/tr/quiz/", follow_redirects=False)
    assert response.status_code == 307 and response.headers["location"] == "/tr/quiz"


def test_embeds_take_the_language_and_may_be_framed(client):
    response = client.get("/el/embed/visualise/float16?value=0.1")
    assert response.status_code == 200 and response.headers["content-language"] == "el"
    assert "frame-ancestors *" in response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in client.get("/el/visualise/float16").headers["content-security-policy"]
    assert list(switcher(response.text)) == SERVED  # a framed page has the switcher too
    assert not found(response.text, "header", **{"class": "site-header"})  # and still the framed layout


def test_oembed_takes_a_language_prefixed_url(client):
    origin = client.app.state.settings.public_base_url
    answer = client.get("/oembed", params={"url": f"{origin}/tr/visualise/float16?value=0.1"})
    assert answer.status_code == 200
    assert f"{origin}/tr/embed/visualise/float16?value=0.1" in answer.json()["html"]
    page = client.get("/tr/visualise/float16?value=0.1").text
    oembed = attrs_of(page, "link", type="application/json+oembed")["href"]
    assert "%2Ftr%2Fvisualise%2Ffloat16" in oembed


# -- a decimal comma ------------------------------------------------------------------------------


def _stored_bits(html: str) -> str:
    return "".join(text for _, text in found(html, "a", "data-bit"))


@pytest.mark.parametrize("prefix", ["/tr", "/el"])
def test_a_decimal_comma_is_read_on_a_page_in_a_language_that_writes_one(client, prefix):
    comma = client.get(f"{prefix}/visualise/float16?value=0,1")
    point = client.get("/visualise/float16?value=0.1")
    assert comma.status_code == 200
    assert _stored_bits(comma.text) == _stored_bits(point.text) and _stored_bits(point.text)
    assert 'value="0,1"' in comma.text  # the box keeps what was typed
    compare = client.get(f"{prefix}/compare?value=0,1")
    assert compare.status_code == 200


@pytest.mark.parametrize("url", ["/visualise/float16?value=0,1", "/yo/visualise/float16?value=0,1",
                                 "/tr/visualise/float16?value=1,2,3", "/tr/visualise/float16?value=1.234,5"])
def test_a_comma_is_not_a_decimal_point_elsewhere(client, url):
    assert client.get(url).status_code == 422


def test_the_api_stays_english_under_a_prefix(client):
    assert client.get("/tr/api/formats/float16/encode", params={"value": "0,1"}).status_code in (404, 422)


def test_every_scalar_format_page_answers_in_turkish(client):
    for spec in SCALAR_FORMATS[:6]:
        assert client.get(f"/tr/visualise/{spec.id}?value=0,5", headers=HX).status_code == 200


def test_switcher_links_use_the_language_names_in_themselves(client):
    names = [text for _, text in found(client.get("/formats").text, "a", "data-language-link")]
    assert names == ["English", "Türkçe", "Ελληνικά", "Èdè Yorùbá"]
    assert re.search(r"[İı]", client.get("/tr/").text)  # Turkish dotted and dotless i survive as written
    assert PREFIXED.keys() == {"tr", "el", "yo"}
