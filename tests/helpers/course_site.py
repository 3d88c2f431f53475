"""A teacher's course site on another origin: a small HTTP server of fixed pages by path, for the embedding tests."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class CourseSite(ThreadingHTTPServer):
    """Another origin: a teacher's course site, serving fixed pages by path."""

    pages: dict[str, str]


class CourseHandler(BaseHTTPRequestHandler):
    server: CourseSite

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        page = self.server.pages.get(self.path)
        if page is None:
            self.send_error(404)
            return
        body = page.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        """Quiet: the tests judge the pages, not the log."""


@contextmanager
def course_site(pages: dict[str, str]) -> Iterator[str]:
    """Serve `pages` on a free port of localhost (another site than the app's 127.0.0.1); yield its base URL."""
    site = CourseSite(("127.0.0.1", 0), CourseHandler)  # port 0: the system picks a free one
    site.pages = pages
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{site.server_address[1]}"
    finally:
        site.shutdown()
        site.server_close()
