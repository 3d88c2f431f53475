"""Annotated dependencies, so routes declare what they need and tests can override it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.settings import Settings, get_settings

SettingsDep = Annotated[Settings, Depends(get_settings)]


def is_htmx(request: Request) -> bool:
    """Whether htmx asked for a fragment rather than a whole page."""
    return request.headers.get("HX-Request") == "true"


HtmxDep = Annotated[bool, Depends(is_htmx)]
