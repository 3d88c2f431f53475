"""The static files: under /static/<version>/ for ever (the version is a digest of them all), with no validators,
since a browser never revalidates what is immutable; and under their plain names, which revalidate by ETag, for
anything that still links those."""

from __future__ import annotations

import os
from pathlib import Path

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"  # the URL changes whenever the file does
REVALIDATE = "no-cache"  # kept, but checked again (ETag, Last-Modified) before each use


class CachedStaticFiles(StaticFiles):
    """Starlette's static files, each answered with the one Cache-Control header given."""

    def __init__(self, directory: Path, cache_control: str) -> None:
        super().__init__(directory=directory)
        self.cache_control = cache_control

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope,
                      status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = self.cache_control
        if self.cache_control == IMMUTABLE:  # never asked about again: a validator would be bytes no one reads
            for validator in ("etag", "last-modified"):
                if validator in response.headers:
                    del response.headers[validator]
        return response
