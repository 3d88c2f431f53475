"""One HTML parser for every test that reads a page or a template: the start tags with their attributes, the
text inside each element, and the elements each tag lies in. Also what the page tests share: htmx's request
header and the first visit's budget."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin

import pytest

HX = {"HX-Request": "true"}
PAGE_BUDGET = 150_000  # bytes a first visit of a page loads: its HTML, stylesheets and scripts
# What a first visit of each page may transfer, compressed (DESIGN.md section 5), and the pages held to it:
# tests/web/platform/test_wire.py counts the bodies through the test client, tests/browser/test_first_visit.py all a
# browser transfers (headers too) on the first screen of a phone and of a desktop, lazy parts included.
FIRST_VISIT_BUDGET = 40_000
FIRST_VISIT_PAGES = [
    "/", "/visualise/float16?value=0.1", "/visualise/float64?value=0.1", "/compare?value=0.1", "/formats",
    "/train", "/quiz", "/learn", "/learn/number-formats", "/learn/mixed-precision-training", "/learn/quantisation",
    "/learn/glossary", "/learn/memory", "/learn/hardware", "/learn/accumulation", "/verify", "/docs",
    "/embed/visualise/float16?value=0.1", "/visualise/mxfp4?preset=outlier", "/visualise/nvfp4",
    "/visualise/nf4?preset=floor", "/embed/visualise/mxint8?preset=nan", "/visualise/float128?value=0.1",
    "/visualise/custom?exponent_bits=5&mantissa_bits=2&value=0.1", "/embed/compare?value=0.1", "/embed/train",
    "/el/learn/mixed-precision-training", "/el/visualise/nf4?preset=floor", "/arithmetic",
    "/yo/arithmetic?format=float128&op=sqrt&a=2&step=mul:3&step=sqrt", "/embed/arithmetic", "/dot",
]
# The relative modules a script imports statically (`import {a} from "./codec.js"`, `import "./x.js"`), minified
# or not: what the browser fetches before the script runs.
STATIC_IMPORT = re.compile(r"""\b(?:import|export)\s*(?:[\w*{}\s,$]*?\bfrom\s*)?["'](\.{1,2}/[^"']+)["']""")
# The elements HTML gives no end tag; every other element, SVG's <path> and <line> included, is closed by one.
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                  "wbr"})


class Elements(HTMLParser):
    """Every start tag of a document, in order, with its attributes; the text inside each element; and, for each
    tag, the elements open around it (outermost first)."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.texts: list[str] = []
        self.parents: list[tuple[int, ...]] = []
        self._open: list[int] = []
        self.feed(html)
        self.close()

    def _start(self, tag: str, attrs: list[tuple[str, str | None]]) -> int:
        self.tags.append((tag, {name: value or "" for name, value in attrs}))
        self.texts.append("")
        self.parents.append(tuple(self._open))
        return len(self.tags) - 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        index = self._start(tag, attrs)
        if tag not in VOID:
            self._open.append(index)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs)  # <path ... />: closed where it opens

    def handle_endtag(self, tag: str) -> None:
        """Close the innermost open element of that name, and any left open inside it; a stray end tag closes
        nothing."""
        for depth in range(len(self._open) - 1, -1, -1):
            if self.tags[self._open[depth]][0] == tag:
                del self._open[depth:]
                return

    def handle_data(self, data: str) -> None:
        for index in self._open:
            self.texts[index] += data

    def having(self, attribute: str) -> list[dict[str, str]]:
        """The attributes of every element that carries `attribute`."""
        return [attrs for _, attrs in self.tags if attribute in attrs]

    def texts_of(self, attribute: str) -> list[str]:
        """The text, whitespace collapsed, of every element that carries `attribute`."""
        return [" ".join(self.texts[i].split()) for i, (_, attrs) in enumerate(self.tags) if attribute in attrs]

    def text_of(self, attribute: str) -> str:
        """The text, whitespace collapsed, of the first element that carries `attribute`."""
        index = next(i for i, (_, attrs) in enumerate(self.tags) if attribute in attrs)
        return " ".join(self.texts[index].split())

    def ids(self) -> list[str]:
        return [attrs["id"] for _, attrs in self.tags if "id" in attrs]

    def inside(self, index: int) -> list[int]:
        """The indices of the tags within the element at `index`, in document order."""
        inner = []
        for later in range(index + 1, len(self.tags)):
            if index not in self.parents[later]:
                break  # an element's content is one run of the document
            inner.append(later)
        return inner


def first_visit(html: str, client: Any) -> dict[str, bytes]:
    """What a first visit of the page `html` loads besides it: every stylesheet it links and every script it names,
    and the modules those scripts import, followed to the end; by URL, each fetched once through the test client."""
    page = Elements(html)
    todo = [a["href"] for tag, a in page.tags if tag == "link" and a.get("rel") == "stylesheet"]
    todo += [a["src"] for tag, a in page.tags if tag == "script" and "src" in a]
    loaded: dict[str, bytes] = {}
    while todo:
        url = todo.pop()
        if url in loaded:
            continue
        response = client.get(url)
        assert response.status_code == 200, f"{url}: {response.status_code} (run `make setup`)"
        loaded[url] = response.content
        if url.endswith(".js"):
            todo += [urljoin(url, name) for name in STATIC_IMPORT.findall(loaded[url].decode())]
    return loaded


# Pages whose first visit is over a budget today, marked as expected failures, strictly (one that fits again fails
# until it is taken off this list). None since the block pages' element tables were made short and their data
# carries only the words their script can say (docs/decisions.md, "First-visit budget").
OVER_BUDGET: set[str] = set()


def budgeted(urls: list[str]) -> list[Any]:
    """`urls` as parameters, those in OVER_BUDGET marked as strict expected failures."""
    over = pytest.mark.xfail(strict=True, reason="over the first-visit budget since the views run in the browser "
                                                "(tests/helpers/html.py OVER_BUDGET)")
    return [pytest.param(url, marks=over) if url in OVER_BUDGET else url for url in urls]
