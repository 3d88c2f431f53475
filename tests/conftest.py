"""The quick tier: `make test-quick` runs every test not marked `slow`, for the edit-test loop; `make test` runs
them all. A slow test is marked where it is written, `@pytest.mark.slow` with a comment saying why (pytest
--durations); only what is slow as a whole is marked here: the suites that start servers or browsers (browser,
system, fuzz) and every case run against PostgreSQL (its test id names postgresql), whichever test it belongs to."""

from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).parent
SLOW_SUITES = ("browser", "system", "fuzz")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.relative_to(_HERE).as_posix() if item.path.is_relative_to(_HERE) else ""
        if where.split("/", 1)[0] in SLOW_SUITES or "postgresql" in item.name:
            item.add_marker(pytest.mark.slow)
