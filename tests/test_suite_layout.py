"""The test suite holds its own layout: shared helpers live in helper modules (tests/helpers, the helper modules
beside the suites, conftest.py), never in a test module another one imports; and the slow list of tests/conftest.py
names tests that exist, so that a moved or renamed test does not fall into the quick tier unnoticed."""

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


def _slow_tests() -> set[str]:
    """The SLOW_TESTS of tests/conftest.py, read from its source."""
    for node in ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["SLOW_TESTS"]:
            return set(ast.literal_eval(node.value))
    raise AssertionError("tests/conftest.py has no SLOW_TESTS")


def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


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


def test_every_slow_test_named_in_the_conftest_exists():
    slow = _slow_tests()
    assert len(slow) >= 20
    missing = [name for name in sorted(slow)
               if not (TESTS / name.split("::")[0]).is_file()
               or name.split("::")[1] not in _functions(TESTS / name.split("::")[0])]
    assert not missing, "a slow test was moved or renamed: update SLOW_TESTS in tests/conftest.py"
