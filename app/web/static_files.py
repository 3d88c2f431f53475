"""The static files: under /static/<version>/ for ever (the version is a digest of them all), and under their
plain names, which revalidate by ETag, for anything that still links those."""

from __future__ import annotations

import os
from typing import Any

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


class VersionedStaticFiles(StaticFiles):
    """Files whose URL changes whenever their content does: browsers keep them a year without asking again."""

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope,
                      status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = IMMUTABLE
        return response


class PlainStaticFiles(StaticFiles):
    """Files under their plain names: cached, but checked again (ETag, Last-Modified) before each use."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = REVALIDATE
        return response
