"""Light on the wire: text is compressed for clients that ask, the event stream never is, and the first visit of
every page (its HTML, stylesheets, scripts with the modules they import, and the fragments it loads at once)
stays under 40 KB transferred (DESIGN.md section 5)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from tests.web.test_train import SHORT_QUERY

FIRST_VISIT_BUDGET = 40_000
GZIP = {"Accept-Encoding": "gzip"}
PAGES = [
    "/", "/visualise/float16?value=0.1", "/visualise/float64?value=0.1", "/compare?value=0.1", "/formats",
    "/train", "/quiz", "/learn", "/learn/number-formats", "/learn/mixed-precision-training", "/learn/quantisation",
    "/learn/glossary", "/learn/memory", "/learn/hardware", "/verify", "/docs", "/embed/visualise/float16?value=0.1",
    "/embed/compare?value=0.1", "/embed/train",
]
_IMPORT = re.compile(r'\bfrom\s+"\./([\w.-]+\.js)"')


class _Tags(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {name: value or "" for name, value in attrs}))


def _first_visit(client, url: str) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Bytes on the wire (compressed bodies) of everything a first visit to url loads, by URL."""
    page = client.get(url, headers=GZIP)
    assert page.status_code == 200
    transferred = {url: page.num_bytes_downloaded}
    tags = _Tags(page.text).tags
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
    for fragment in [a["hx-get"] for _, a in tags if a.get("hx-trigger") == "load"]:
        transferred[fragment] = client.get(fragment, headers={**GZIP, "HX-Request": "true"}).num_bytes_downloaded
    return transferred


@pytest.mark.parametrize("url", PAGES)
def test_the_first_visit_of_every_page_stays_under_40_kb_transferred(client, url):
    transferred = _first_visit(client, url)
    assert sum(transferred.values()) <= FIRST_VISIT_BUDGET, transferred


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
