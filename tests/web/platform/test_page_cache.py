"""The page cache serves a repeated URL from memory, byte for byte, and keeps page and fragment apart."""

from __future__ import annotations

import pytest

from app.web.visualise.pages import visualise


def test_a_repeated_url_is_served_from_the_cache_unchanged(client):
    cache = visualise.cache  # type: ignore[attr-defined]
    url = "/visualise/bfloat16?value=0.3141"
    first = client.get(url)
    size = len(cache)
    second = client.get(url)
    assert len(cache) == size  # no new entry: the second answer came from the cache
    assert second.content == first.content and second.status_code == 200
    assert second.headers["content-type"] == first.headers["content-type"]
    assert second.headers["content-security-policy"] == first.headers["content-security-policy"]


def test_page_and_fragment_are_cached_apart(client):
    url = "/visualise/bfloat16?value=0.2718"
    page = client.get(url)
    fragment = client.get(url, headers={"HX-Request": "true"})
    again = client.get(url, headers={"HX-Request": "true"})
    assert b"<html" in page.content and b"<html" not in fragment.content
    assert again.content == fragment.content


def test_refusals_are_cached_with_their_status(client):
    cache = visualise.cache  # type: ignore[attr-defined]
    url = "/visualise/float16?value=not-a-number"
    first = client.get(url)
    size = len(cache)
    assert first.status_code == 422 and ("en", "/visualise/float16", "value=not-a-number", None, None) in cache
    second = client.get(url)
    assert len(cache) == size  # served from the cache, with the refusal's status and body
    assert second.status_code == 422 and second.content == first.content


@pytest.mark.slow  # renders 1,100 pages
def test_the_cache_is_bounded(client):
    cache = visualise.cache  # type: ignore[attr-defined]
    for i in range(1100):
        client.get(f"/visualise/float8_e4m3fn?bits={i % 256}&seed={i}")
    assert len(cache) <= 1024
