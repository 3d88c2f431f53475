"""The home page in a real browser."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect


def test_home_page_loads_passes_axe_and_links_to_formats_and_compare(
    page: Page, axe_check: Callable[[Page], None]
) -> None:
    response = page.goto("/")

    assert response is not None and response.ok
    expect(page).to_have_title(re.compile("Precision Lab"))
    expect(page.locator("a[href='/formats']").first).to_be_visible()
    expect(page.locator("a[href^='/compare']").first).to_be_visible()
    axe_check(page)
