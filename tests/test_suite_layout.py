"""The test suite holds its own layout: shared helpers live in helper modules (tests/helpers, the helper modules
beside the suites, conftest.py), never in a test module another one imports; and a slow test is marked where it is
written, `@pytest.mark.slow` with a comment saying why, not in a list of names that a moved or renamed test falls
out of unnoticed."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _imported_modules(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.append(node.module or "")
    return names


def _test_module_imports(path: Path) -> list[str]:
    return [name for name in _imported_modules(path) if name.rsplit(".", 1)[-1].startswith("test_")]


def test_no_module_imports_a_test_module():
    modules = sorted([*TESTS.rglob("*.py"), *(ROOT / "bench").rglob("*.py")])
    assert len(modules) > 50
    offending = [(path.relative_to(ROOT).as_posix(), name) for path in modules for name in _test_module_imports(path)]
    assert not offending, "move what they share into tests/helpers"


def test_the_check_sees_an_import_of_a_test_module(tmp_path):
    module = tmp_path / "test_other.py"
    module.write_text("from tests.web.test_pages import Elements\nimport tests.unit.test_layers\n"
                      "from tests.helpers.html import HX\n", encoding="utf-8")
    assert _test_module_imports(module) == ["tests.web.test_pages", "tests.unit.test_layers"]


def _slow_marks_without_a_reason(path: Path) -> list[int]:
    """The lines of `@pytest.mark.slow` in a module that carry no comment saying why the test is slow."""
    return [number for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if line.strip().startswith("@pytest.mark.slow") and "#" not in line]


def test_the_conftest_marks_no_single_test_slow():
    conftest = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    strings = [node.value for node in ast.walk(conftest)
               if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    named = [text for text in strings if "::" in text or text.startswith("test_")]
    assert not named, "mark a slow test with @pytest.mark.slow where it is written, not by its name in the conftest"


def test_every_slow_mark_says_why():
    marked = [path for path in TESTS.rglob("test_*.py") if "@pytest.mark.slow" in path.read_text(encoding="utf-8")]
    assert len(marked) >= 10
    bare = [(path.relative_to(ROOT).as_posix(), line) for path in marked for line in _slow_marks_without_a_reason(path)]
    assert not bare, "say why the test is slow beside its mark: @pytest.mark.slow  # 77 s: trains every recipe"


def test_the_check_sees_a_slow_mark_without_a_reason(tmp_path):
    module = tmp_path / "test_other.py"
    module.write_text("@pytest.mark.slow\ndef test_a():\n    pass\n\n\n"
                      "@pytest.mark.slow  # 5 s: sums a million values\ndef test_b():\n    pass\n", encoding="utf-8")
    assert _slow_marks_without_a_reason(module) == [1]
