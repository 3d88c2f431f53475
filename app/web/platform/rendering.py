"""Page or fragment, decided in one place: htmx requests get the named block, browsers the page."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, cast

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2_fragments.fastapi import Jinja2Blocks

ROOT = Path(__file__).resolve().parents[3]
templates = Jinja2Blocks(directory=str(ROOT / "templates"))
templates.env.auto_reload = False  # templates change only with a deploy; no stat() per render
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


def link_prefix(path: str) -> str:
    """What a page's own links start with: EMBED_PREFIX on a framed page, so that they stay in the frame."""
    return EMBED_PREFIX if path.startswith(EMBED_PREFIX + "/") else ""


def canonical_url(request: Request) -> str:
    """The page's own URL on the public origin, its query kept (it is the view's whole state); an embedded
    page's is the full page it frames, so that search engines index that one."""
    path = request.url.path
    if path.startswith(EMBED_PREFIX + "/"):
        path = path[len(EMBED_PREFIX):]
    query = request.url.query
    return request.app.state.settings.public_base_url + path + (f"?{query}" if query else "")


templates.env.globals["canonical_url"] = canonical_url


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
