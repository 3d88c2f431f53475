"""Annotated dependencies, so routes declare what they need and tests can override it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.settings import Settings, get_settings
from app.store.database import open_session

SettingsDep = Annotated[Settings, Depends(get_settings)]


def get_db(request: Request) -> Iterator[Session]:
    """A session on the engine that create_app put on `app.state.engine`, closed after the response."""
    with open_session(request.app.state.engine) as session:
        yield session


DbDep = Annotated[Session, Depends(get_db)]


def is_htmx(request: Request) -> bool:
    """Whether htmx asked for a fragment rather than a whole page."""
    return request.headers.get("HX-Request") == "true"


HtmxDep = Annotated[bool, Depends(is_htmx)]
