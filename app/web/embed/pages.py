"""Pages teachers embed in their own course pages, and oEmbed (https://oembed.com, version 1.0) for them.

/embed/visualise/{format}, /embed/compare and /embed/train are the visualiser, the comparison and the training
demo themselves (the same route functions), laid out without the site's header and footer (templates/embed/),
with their links kept under /embed/. Only /embed/* may be framed (app/web/platform/headers.py). Every embeddable page,
full or framed, shows the iframe snippet of its current state (`share`), and /oembed answers for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from typing import Annotated, Any
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import APIRouter, HTTPException, Query, Request

from app.deps import SettingsDep
from app.formats import BLOCK_FORMAT_IDS, CUSTOM_ID, SCALAR_FORMATS
from app.web.embed.schemas import OEmbed
from app.web.platform.rendering import EMBED_PREFIX, templates
from app.web.platform.schemas import refused

router = APIRouter()

PROVIDER = "Precision Lab"
WIDTH = 720  # px: the oEmbed frame's width when the consumer gives no maxwidth
MAX_URL = 2000  # characters; every URL of ours is far shorter
_VISUALISE = re.compile(r"/visualise/([a-z0-9_]+)")
_SCALAR_IDS = frozenset({*(spec.id for spec in SCALAR_FORMATS), CUSTOM_ID})  # a custom layout's in its query
_BLOCK_IDS = frozenset(BLOCK_FORMAT_IDS)
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Embeddable:
    """One embeddable page in one state, and the frame it needs."""

    path: str  # of the full page: /visualise/bfloat16, /compare, /train
    query: str  # the state: the page's whole query string
    what: str  # what it is, in a few words
    height: int  # px: what the page needs to show its main figure without scrolling

    @property
    def title(self) -> str:
        return f"Precision Lab: {self.what}"

    @property
    def full_page(self) -> str:
        return self.path + (f"?{self.query}" if self.query else "")

    def snippet(self, origin: str, width: int | str = "100%", height: int | None = None) -> str:
        """The iframe a teacher pastes into a course page: the /embed/ version of this page in this state."""
        src = f"{origin}{EMBED_PREFIX}{self.full_page}"
        return (
            f'<iframe src="{escape(src)}" width="{width}" height="{height or self.height}" '
            f'style="border:0;max-width:100%" title="{escape(self.title)}" loading="lazy"></iframe>'
        )


def embeddable(path: str, query: str = "") -> Embeddable | None:
    """The embeddable page at `path` (its full or its /embed/ address), or None where there is none."""
    page = path.removeprefix(EMBED_PREFIX) if path.startswith(EMBED_PREFIX + "/") else path
    if page == "/compare":
        return Embeddable(page, query, "one value in every number format", 760)
    if page == "/train":
        return Embeddable(page, query, "mixed-precision training demo", 900)
    match = _VISUALISE.fullmatch(page)
    if match and match[1] in _BLOCK_IDS and (match[1] not in _SCALAR_IDS or _asks_for_a_block(query)):
        return Embeddable(page, query, "block format visualiser", 1100)
    if match and match[1] in _SCALAR_IDS:
        return Embeddable(page, query, "number format visualiser", 720)
    return None


def _asks_for_a_block(query: str) -> bool:
    """Whether a scalar format scaled per block (NF4) is asked for its block view, as the visualiser decides."""
    return bool({"values", "preset"} & parse_qs(query, keep_blank_values=True).keys())


@dataclass(frozen=True)
class Share:
    """What an embeddable page shows of itself: its snippet, its oEmbed address, and whether it is framed."""

    page: Embeddable
    snippet: str
    oembed: str
    embedded: bool


def share(request: Request) -> Share:
    """The Embed button's content for the embeddable page `request` asked for."""
    url = request.url
    page = embeddable(url.path, url.query)
    if page is None:
        raise LookupError(f"{url.path} is not an embeddable page, so it has no Embed button")
    origin: str = request.app.state.settings.public_base_url
    oembed = f"{origin}/oembed?url={quote(origin + page.full_page, safe='')}&format=json"
    return Share(page, page.snippet(origin), oembed, url.path.startswith(EMBED_PREFIX + "/"))


# templates/embed/_share.html calls it; the visualiser's cache stays right, as it keys pages by path and query
templates.env.globals["share"] = share


def _origin(scheme: str, host: str | None, port: int | None) -> tuple[str, str | None, int | None]:
    return scheme, host, port or _DEFAULT_PORTS.get(scheme)


def ours(url: str, origin: str) -> Embeddable | None:
    """The embeddable page `url` points at, when it is on this site (`origin`); None for anything else."""
    try:
        parts, home = urlsplit(url), urlsplit(origin)
        same = _origin(parts.scheme, parts.hostname, parts.port) == _origin(home.scheme, home.hostname, home.port)
    except ValueError:  # a malformed host or port
        return None
    return embeddable(parts.path, parts.query) if same else None


@router.get("/oembed", include_in_schema=False, response_model=OEmbed,
            responses={404: refused("The url is not an embeddable page of this site"),
                       501: refused("A format other than json")})
def oembed(
    settings: SettingsDep,
    url: Annotated[str, Query(max_length=MAX_URL, description="an embeddable page of this site, full or /embed/")],
    response_format: Annotated[str, Query(alias="format", description="json, the only one served")] = "json",
    maxwidth: Annotated[int | None, Query(ge=1, description="the widest frame the consumer shows, in px")] = None,
    maxheight: Annotated[int | None, Query(ge=1, description="the tallest frame the consumer shows, in px")] = None,
) -> dict[str, Any]:
    """A `rich` oEmbed response: the iframe of an embeddable page, never wider or taller than the consumer asked."""
    if response_format != "json":
        raise HTTPException(501, "Only format=json is served here; ask again with format=json.")
    origin = settings.public_base_url
    page = ours(url, origin)
    if page is None:
        raise HTTPException(404, f"Only the visualiser, comparison and training pages of {origin} can be embedded.")
    width, height = min(WIDTH, maxwidth or WIDTH), min(page.height, maxheight or page.height)
    return {
        "version": "1.0", "type": "rich", "provider_name": PROVIDER, "provider_url": origin + "/",
        "title": page.title, "html": page.snippet(origin, width, height), "width": width, "height": height,
    }
