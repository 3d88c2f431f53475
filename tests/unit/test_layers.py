"""The layers hold: the cores (formats, training, quiz) import neither the web layer nor the store, nor the
frameworks those stand on, so each core runs, and is tested, without a server or a database."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import app

CORES = ("formats", "training", "quiz")
FORBIDDEN = ("app.web", "app.store", "app.services", "app.main", "app.settings", "app.cli", "fastapi", "starlette",
             "jinja2", "jinja2_fragments", "sqlalchemy", "alembic", "uvicorn", "httpx", "redis", "limits")
APP = Path(app.__file__).parent


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.append(node.module or "")
    return names


@pytest.mark.parametrize("core", CORES)
def test_a_core_imports_no_web_store_or_framework_module(core):
    modules = sorted((APP / core).rglob("*.py"))
    assert modules
    offending = [(path.relative_to(APP).as_posix(), name) for path in modules for name in _imports(path)
                 if any(name == forbidden or name.startswith(forbidden + ".") for forbidden in FORBIDDEN)]
    assert not offending


def test_the_check_sees_a_forbidden_import(tmp_path):
    module = tmp_path / "bad.py"
    module.write_text("from app.web.shared.rendering import render\nimport sqlalchemy.orm\n", encoding="utf-8")
    assert _imports(module) == ["app.web.shared.rendering", "sqlalchemy.orm"]
