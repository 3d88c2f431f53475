"""Modules stay small, Python and JavaScript alike: every module of app/ (*.py) and static/js/ (*.js) is at most
MAX_LINES lines long (aim for about 250), so that each holds one thing, named for what it holds."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 320
SOURCES = [("app", "*.py"), ("static/js", "*.js")]


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_every_module_is_at_most_320_lines_long():
    modules = [path for folder, pattern in SOURCES for path in sorted((ROOT / folder).rglob(pattern))]
    assert len(modules) > 100 and any(path.suffix == ".js" for path in modules)
    too_long = {path.relative_to(ROOT).as_posix(): _lines(path) for path in modules if _lines(path) > MAX_LINES}
    assert not too_long, f"split these by what they hold (at most {MAX_LINES} lines each): {too_long}"


def test_the_count_is_of_lines(tmp_path: Path):
    module = tmp_path / "m.js"
    module.write_text("a\n" * MAX_LINES + "b", encoding="utf-8")
    assert _lines(module) == MAX_LINES + 1
