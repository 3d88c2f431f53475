"""Pages teachers embed in their own course pages, and oEmbed (https://oembed.com, version 1.0) for them.

/embed/visualise/{format}, /embed/compare and /embed/train are the visualiser, the comparison and the training
demo themselves (the same route functions), laid out without the site's header and footer (templates/embed/),
with their links kept under /embed/. Only /embed/* may be framed (app/web/platform/headers.py). Every embeddable page,
full or framed, shows the iframe snippet of its current state (`share`), and /oembed answers for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from html import escape
from typing import Annotated, Any
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import APIRouter, HTTPException, Query, Request

from app.deps import SettingsDep
from app.formats import BLOCK_FORMAT_IDS, CUSTOM_ID, SCALAR_FORMATS
from app.web.embed import hide
from app.web.embed.schemas import OEmbedAnswer
from app.web.platform.catalogs import N_, gettext
from app.web.platform.languages import ENGLISH, LANGUAGES, current_language, speaking, unprefixed
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
    height: int  # px: the frame's height until the page tells the host its own (host_script), or without script
    kind: str  # which vocabulary of hide flags it has: a key of hide.VOCABULARY
    language: str = ""  # its language's URL prefix (/tr), before the path and /embed/ alike; "" for English

    @property
    def title(self) -> str:
        """The frame's title, in the embedded page's own language (whatever the language of the request)."""
        language = next((lang for lang in LANGUAGES if lang.prefix == self.language), ENGLISH)
        with speaking(language):
            return f"Precision Lab: {gettext(self.what)}"

    @property
    def full_page(self) -> str:
        return self.language + self.path + (f"?{self.query}" if self.query else "")

    @property
    def hidden(self) -> tuple[str, ...]:
        """The parts its query hides (hide.UnknownHide for a flag this kind of page does not have)."""
        return hide.hidden(self.kind, self.query)

    def snippet(self, origin: str, width: int | str = "100%", height: int | None = None) -> str:
        """What a teacher pastes into a course page: the iframe of the /embed/ version of this page in this state,
        and the few lines of script that fit the frame to its content (`host_script`)."""
        src = f"{origin}{self.language}{EMBED_PREFIX}{self.path}" + (f"?{self.query}" if self.query else "")
        return (
            f'<iframe src="{escape(src)}" width="{width}" height="{height or self.height}" '
            f'style="border:0;max-width:100%" title="{escape(self.title)}" loading="lazy" {FRAME_MARK}></iframe>\n'
            f"<script>{host_script(origin)}</script>"
        )


# The frames the host script fits: those of the snippet, never any other frame of the course page.
FRAME_MARK = "data-precision-lab"
HEIGHT_MESSAGE = "precision-lab:height"  # the type of static/js/embed_size.js's message


def host_script(origin: str) -> str:
    """The course page's half of the height protocol: static/js/embed_size.js in each framed page posts
    {type: HEIGHT_MESSAGE, height, id} to its parent whenever its content's height changes; this listens, takes
    only messages from this site's origin that come from one of the snippet's frames, and sets that frame's height.
    Pasting it twice (two frames) installs it once per origin. Plain ES5, for whatever the course page runs on."""
    quoted = json.dumps(origin).replace("<", "\\u003c")  # a string literal that cannot close the script
    return (
        "(function(o){var k='precision-lab-fit '+o;if(window[k])return;window[k]=1;"
        "addEventListener('message',function(e){var d=e.data,f,i;"
        f"if(e.origin!==o||!d||d.type!=='{HEIGHT_MESSAGE}'||!(d.height>0&&d.height<1e5))return;"
        f"f=document.querySelectorAll('iframe[{FRAME_MARK}]');"
        "for(i=0;i<f.length;i++)if(f[i].contentWindow===e.source)f[i].style.height=Math.ceil(d.height)+'px';"
        f"}});}})({quoted});"
    )


def embeddable(path: str, query: str = "") -> Embeddable | None:
    """The embeddable page at `path` (its full or its /embed/ address), or None where there is none."""
    page = path.removeprefix(EMBED_PREFIX) if path.startswith(EMBED_PREFIX + "/") else path
    if page == "/compare":
        return Embeddable(page, query, N_("one value in every number format"), 760, "compare")
    if page == "/train":
        return Embeddable(page, query, N_("mixed-precision training demo"), 900, "train")
    if page == "/arithmetic":
        return Embeddable(page, query, N_("arithmetic lab"), 1100, "arithmetic")
    if page == "/dot":
        return Embeddable(page, query, N_("dot-product lab"), 1400, "dot")
    if page == "/learn/accumulation":
        return Embeddable(page, query, N_("accumulation figure"), 1000, "accumulation")
    match = _VISUALISE.fullmatch(page)
    if match and match[1] in _BLOCK_IDS and (match[1] not in _SCALAR_IDS or _asks_for_a_block(query)):
        return Embeddable(page, query, N_("block format visualiser"), 1100, "block")
    if match and match[1] in _SCALAR_IDS:
        return Embeddable(page, query, N_("number format visualiser"), 720, "visualise")
    return None


def _asks_for_a_block(query: str) -> bool:
    """Whether a scalar format scaled per block (NF4) is asked for its block view, as the visualiser decides."""
    return bool({"values", "preset"} & parse_qs(query, keep_blank_values=True).keys())


@dataclass(frozen=True)
class Share:
    """What an embeddable page shows of itself: its snippet, its oEmbed address, whether it is framed, and the
    Embed dialog's hide choices: every part the page can hide, those its URL hides, and the rest of its state."""

    page: Embeddable
    snippet: str
    oembed: str
    embedded: bool
    parts: tuple[hide.Part, ...]
    hidden: tuple[str, ...]
    state: list[tuple[str, str]]


def share(request: Request) -> Share:
    """The Embed button's content for the embeddable page `request` asked for; hide.UnknownHide (400, with the
    allowed names) where its hide flags are not the page's, which refuses the page, full or framed."""
    url = request.url
    page = embeddable(url.path, url.query)
    if page is None:
        raise LookupError(f"{url.path} is not an embeddable page, so it has no Embed button")
    page = replace(page, language=current_language().prefix)
    origin: str = request.app.state.settings.public_base_url
    oembed = f"{origin}/oembed?url={quote(origin + page.full_page, safe='')}&format=json"
    embedded = url.path.startswith(EMBED_PREFIX + "/")
    return Share(page, page.snippet(origin), oembed, embedded, hide.VOCABULARY[page.kind], page.hidden,
                 hide.without_hide(url.query))


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
    path = unprefixed(parts.path)  # /tr/visualise/float16: the Turkish page, framed in Turkish
    page = embeddable(path, parts.query) if same else None
    return page and replace(page, language=parts.path[:len(parts.path) - len(path)])


@router.get("/oembed", include_in_schema=False, response_model=OEmbedAnswer,
            responses={404: refused("The url is not an embeddable page of this site"),
                       400: refused("A hide flag the page does not have"),
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
        raise HTTPException(404, f"Only the visualiser, comparison, training and accumulation pages of {origin} can be "
                                 "embedded.")
    hide.hidden(page.kind, page.query)  # refuses a hide flag the page does not have, as the page itself does
    width, height = min(WIDTH, maxwidth or WIDTH), min(page.height, maxheight or page.height)
    return {
        "version": "1.0", "type": "rich", "provider_name": PROVIDER, "provider_url": origin + "/",
        "title": page.title, "html": page.snippet(origin, width, height), "width": width, "height": height,
    }
