"""Light on the wire: text is compressed for clients that ask, the event stream never is, and the first visit of
every page (its HTML, stylesheets, scripts with the modules they import, and the fragments it loads at once)
stays under 40 KB transferred (DESIGN.md section 5)."""

from __future__ import annotations

import re

import pytest

from app.formats import BLOCK_FORMAT_IDS
from app.web.blocks.pages import PRESETS
from app.web.platform.languages import LANGUAGES
from tests.helpers.html import FIRST_VISIT_BUDGET, FIRST_VISIT_PAGES, PAGE_BUDGET, Elements, budgeted, first_visit
from tests.helpers.training import SHORT_QUERY

GZIP = {"Accept-Encoding": "gzip"}
_IMPORT = re.compile(r'\bfrom\s+"\./([\w.-]+\.js)"')


def _first_visit(client, url: str) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Bytes on the wire (compressed bodies) of everything a first visit to url loads, by URL."""
    page = client.get(url, headers=GZIP)
    assert page.status_code == 200
    transferred = {url: page.num_bytes_downloaded}
    tags = Elements(page.text).tags
    wanted = [a["href"] for tag, a in tags if tag == "link" and a.get("rel") == "stylesheet"]
    wanted += [a["src"] for tag, a in tags if tag == "script" and "src" in a]
    while wanted:
        asset = wanted.pop()
        if asset in transferred:
            continue
        response = client.get(asset, headers=GZIP)
        assert response.status_code == 200, asset
        transferred[asset] = response.num_bytes_downloaded
        if asset.endswith(".js"):
            wanted += [asset.rsplit("/", 1)[0] + "/" + name for name in _IMPORT.findall(response.text)]
    for fragment in [a["data-hx-get"] for _, a in tags if a.get("data-hx-trigger") == "load"]:
        transferred[fragment] = client.get(fragment, headers={**GZIP, "HX-Request": "true"}).num_bytes_downloaded
    return transferred


@pytest.mark.parametrize("url", budgeted(FIRST_VISIT_PAGES))
def test_the_first_visit_of_every_page_stays_under_40_kb_transferred(client, url):
    transferred = _first_visit(client, url)
    assert sum(transferred.values()) <= FIRST_VISIT_BUDGET, transferred


# Every block page, of each preset, in each language: the heaviest pages of the site (NF4's 64 elements; Greek,
# whose words are two bytes a letter, and the words the script says carried in the page's data)
BLOCK_PAGES = [(language.prefix, format_id) for language in LANGUAGES for format_id in BLOCK_FORMAT_IDS]


@pytest.mark.parametrize(("prefix", "format_id"), BLOCK_PAGES, ids=[f"{p or '/en'}/{f}" for p, f in BLOCK_PAGES])
def test_every_block_page_fits_both_budgets_in_every_language(client, prefix, format_id):
    for preset in PRESETS:
        url = f"{prefix}/visualise/{format_id}?preset={preset.id}"
        transferred = _first_visit(client, url)
        assert sum(transferred.values()) <= FIRST_VISIT_BUDGET, (url, transferred)
        page = client.get(url).text
        assert len(page.encode()) + sum(len(body) for body in first_visit(page, client).values()) < PAGE_BUDGET, url


@pytest.mark.parametrize("url", ["/", "/api/formats", "/static/css/site.css", "/static/vendor/htmx.min.js"])
def test_text_is_compressed_for_clients_that_ask_and_plain_for_others(client, url):
    compressed = client.get(url, headers=GZIP)
    assert compressed.headers["content-encoding"] == "gzip" and "Accept-Encoding" in compressed.headers["vary"]
    assert compressed.num_bytes_downloaded < len(compressed.content) / 2
    plain = client.get(url, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == compressed.content


def test_the_event_stream_is_never_compressed(client):
    with client.stream("GET", f"/train/stream?{SHORT_QUERY}", headers=GZIP) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        assert "content-encoding" not in response.headers
        assert b"event: done" in response.read()


# -- caching: static files for ever under their version, pages revalidated by ETag ------------------------------


def test_pages_link_static_files_only_under_the_version_of_their_content(client):
    from app.web.platform.rendering import STATIC_VERSION

    for url in FIRST_VISIT_PAGES:
        html = client.get(url).text
        linked = re.findall(r'(?:href|src)="(/static/[^"]+)"', html)
        assert linked and all(path.startswith(f"/static/{STATIC_VERSION}/") for path in linked), (url, linked)


def test_a_versioned_static_file_is_cached_for_a_year_and_its_module_imports_too(client):
    # train.js as the page names it (its bundle, or the source module while the bundle is stale), and the source
    # module, which imports others
    named = re.search(r'src="(/static/[0-9a-f]{12}/(?:bundle|js)/train\.js)"', client.get("/train").text)
    assert named
    assert client.get(named[1]).headers["cache-control"] == "public, max-age=31536000, immutable"
    source = re.sub(r"/(bundle|js)/train\.js$", "/js/train.js", named[1])
    response = client.get(source)
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    imported = source.rsplit("/", 1)[0] + "/" + _IMPORT.findall(response.text)[0]  # as the browser resolves it
    assert client.get(imported).headers["cache-control"] == "public, max-age=31536000, immutable"


def test_the_version_changes_with_any_file_and_only_with_files(tmp_path):
    from app.web.platform.rendering import static_version

    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "a.js").write_text("export const a = 1;")
    first = static_version(tmp_path)
    (tmp_path / ".installed").write_text("")  # the Makefile's stamp is no file of the site
    assert static_version(tmp_path) == first
    (tmp_path / "js" / "a.js").write_text("export const a = 2;")
    changed = static_version(tmp_path)
    assert changed != first
    (tmp_path / "b.css").write_text("")
    assert static_version(tmp_path) not in (first, changed)


def test_a_plain_static_name_revalidates_by_etag(client):
    first = client.get("/static/css/site.css")
    assert first.headers["cache-control"] == "no-cache" and first.headers["etag"]
    assert client.get("/static/css/site.css", headers={"If-None-Match": first.headers["etag"]}).status_code == 304


@pytest.mark.parametrize("url", ["/", "/formats", "/visualise/float16?value=0.1", "/learn/glossary"])
def test_a_page_revalidates_by_etag_and_a_match_is_304_without_a_body(client, url):
    first = client.get(url)
    assert first.headers["cache-control"] == "no-cache" and first.headers["etag"].startswith('W/"')
    again = client.get(url, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == first.headers["etag"]
    assert client.get(url, headers={"If-None-Match": 'W/"something-else"'}).status_code == 200


def test_a_page_that_must_not_be_stored_gets_no_etag(client):
    quiz = client.get("/quiz")
    assert quiz.headers["cache-control"] == "no-store" and "etag" not in quiz.headers


# -- valid HTML: htmx reads its attributes from data-hx-*, so no page carries an attribute HTML does not define --
# The attributes of HTML and SVG that the pages use; anything else must be data-* or aria-* (the W3C Nu checker
# reported every bare hx-* attribute as an error).
STANDARD_ATTRIBUTES = {
    "action", "alt", "autocapitalize", "autocomplete", "autofocus", "charset", "checked", "class", "colspan",
    "content", "cx", "cy", "d", "datetime", "defer", "dir", "disabled", "dominant-baseline", "download", "fill",
    "for", "form", "height", "hidden", "href", "hreflang", "id", "inputmode", "lang", "max", "maxlength", "method",
    "min", "minlength", "name", "open", "pattern", "placeholder", "points", "r", "readonly", "rel", "required", "role",
    "rows", "rowspan", "scope", "selected", "size", "spellcheck", "src", "step", "stroke", "style", "tabindex",
    "target", "text-anchor", "title", "transform", "type", "value", "viewbox", "width", "x", "x1", "x2", "xmlns", "y",
    "y1", "y2",
}


@pytest.mark.parametrize("url", [*FIRST_VISIT_PAGES, f"/train?{SHORT_QUERY}&run=1"])
def test_every_attribute_on_every_page_is_one_html_defines(client, url):
    page = client.get(url)
    assert page.status_code == 200
    unknown = {name for _, attrs in Elements(page.text).tags for name in attrs
               if not name.startswith(("data-", "aria-")) and name not in STANDARD_ATTRIBUTES}
    assert not unknown, unknown


def test_a_static_file_carries_only_the_headers_a_browser_applies_to_one(client):
    """A script or stylesheet gets nosniff, not the documents' policy and frame rules, which do nothing there."""
    page = client.get("/learn")
    script = client.get(next(a["src"] for tag, a in Elements(page.text).tags if tag == "script" and "src" in a))
    assert script.status_code == 200 and script.headers["x-content-type-options"] == "nosniff"
    assert "content-security-policy" not in script.headers and "x-frame-options" not in script.headers
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"] and page.headers["x-frame-options"]


def test_a_versioned_static_file_carries_no_validators_and_a_plain_name_does(client):
    """What is cached for ever is never asked about again, so its ETag and Last-Modified would be dead bytes on
    every first visit; a plain name revalidates with them."""
    from app.web.platform.rendering import static

    versioned = client.get(static("css/site.css"))
    assert versioned.status_code == 200 and versioned.headers["cache-control"].endswith("immutable")
    assert "etag" not in versioned.headers and "last-modified" not in versioned.headers
    plain = client.get("/static/css/site.css")
    assert plain.headers["etag"] and plain.headers["last-modified"]
