"""Page or fragment, decided in one place: htmx requests get the named block, browsers the page."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, cast

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2_fragments.fastapi import Jinja2Blocks

from app.web.platform import catalogs
from app.web.platform.bundles import bundles_are_fresh, entry_module_path
from app.web.platform.languages import LANGUAGES, Language, current_language, localised, switch_links
from app.web.platform.refusal_sentences import core_text

ROOT = Path(__file__).resolve().parents[3]
templates = Jinja2Blocks(directory=str(ROOT / "templates"))
templates.env.auto_reload = False  # templates change only with a deploy; no stat() per render
catalogs.install(templates.env)  # {% trans %}, _(), ngettext and the prose number and date filters
EMBED_PREFIX = "/embed"
STATIC_DIR = ROOT / "static"


def static_version(directory: Path) -> str:
    """A digest of every file under directory (vendor files included; the Makefile's dot-file stamps not): the
    path segment of their immutable URLs, so that a deploy that changes any of them changes every one, and ES
    modules import each other relatively."""
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file() and not p.name.startswith(".")):
        digest.update(path.relative_to(directory).as_posix().encode() + b"\x00" + path.read_bytes())
    return digest.hexdigest()[:12]


STATIC_VERSION = static_version(STATIC_DIR)


def static(path: str) -> str:
    """The immutable URL of a file under static/: /static/<version>/<path>."""
    return f"/static/{STATIC_VERSION}/{path}"


templates.env.globals["static"] = static
SCRIPTS_BUNDLED = bundles_are_fresh(STATIC_DIR)  # decided once, as the static version is


def entry_module(name: str) -> str:
    """The immutable URL of the page entry module `name` (visualiser.js): its minified bundle, which carries what
    it imports, or the source module where the bundle is missing or stale (app/web/platform/bundles.py)."""
    return static(entry_module_path(name, SCRIPTS_BUNDLED))


templates.env.globals["entry_module"] = entry_module


def link_prefix(path: str) -> str:
    """What a page's own links start with: the language's prefix (/tr), and EMBED_PREFIX after it on a framed
    page, so that they stay in the language and in the frame. Whether a page is framed is `embedded`, never
    whether it has a prefix."""
    return current_language().prefix + (EMBED_PREFIX if is_embedded(path) else "")


def is_embedded(path: str) -> bool:
    return path.startswith(EMBED_PREFIX + "/")


def canonical_url(request: Request, language: Language | None = None) -> str:
    """The page's own URL on the public origin in its language (or `language`), its query kept (it is the
    view's whole state); an embedded page's is the full page it frames, so that search engines index that one."""
    path = request.url.path
    if is_embedded(path):
        path = path[len(EMBED_PREFIX):]
    query = request.url.query
    return request.app.state.settings.public_base_url + localised(path, language) + (f"?{query}" if query else "")


def alternates(request: Request) -> list[tuple[str, str]]:
    """(hreflang, URL) of the page in every language, and x-default: the English page, for every other reader."""
    urls = [(language.code, canonical_url(request, language)) for language in LANGUAGES]
    return [*urls, ("x-default", urls[0][1])]


templates.env.globals |= {
    "canonical_url": canonical_url, "alternates": alternates,
    # a link to a page of the site in the page's language: href="{{ url('/quiz') }}" (docs/translating.md)
    "url": localised, "current_language": current_language, "languages": LANGUAGES,
    "language_switch": lambda request: switch_links(request.url.path, request.url.query),
    # a sentence of the formats core (a format's summary, an encode's note) in the page's language
    "core_text": core_text,
}
# Every template knows whether its page is framed (templates/embed/base.html's layout)
templates.context_processors.append(lambda request: {"embedded": is_embedded(request.url.path)})


def wants_fragment(request: Request) -> bool:
    """Whether htmx asked for a fragment rather than the whole page: HX-Request, except when htmx restores
    history after a cache miss, which sends HX-Request too but needs the whole page."""
    headers = request.headers
    return headers.get("HX-Request") == "true" and headers.get("HX-History-Restore-Request") != "true"


def render(
    request: Request, template: str, context: dict[str, Any], *, fragment: str | None = None, status_code: int = 200
) -> HTMLResponse:
    """The whole page, or only block `fragment` of it when htmx asked for one (`wants_fragment`)."""
    block = fragment if fragment and wants_fragment(request) else None
    response = cast(
        HTMLResponse, templates.TemplateResponse(request, template, context, block_name=block, status_code=status_code)
    )
    response.headers["Vary"] = "HX-Request"
    return response
