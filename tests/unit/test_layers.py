"""The layers hold: the cores (formats, training, quiz) import neither the web layer, the services nor the store,
nor the frameworks those stand on, so each core runs, and is tested, without a server or a database; and the web
layer reaches the store only through the services."""

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
    module.write_text("from app.web.platform.rendering import render\nimport sqlalchemy.orm\n", encoding="utf-8")
    assert _imports(module) == ["app.web.platform.rendering", "sqlalchemy.orm"]


def test_the_web_layer_reaches_the_store_only_through_the_services():
    modules = sorted((APP / "web").rglob("*.py"))
    assert len(modules) > 30
    offending = [(path.relative_to(APP).as_posix(), name) for path in modules for name in _imports(path)
                 if name == "app.store" or name.startswith("app.store.")]
    assert not offending


FACES = ("formats", "training", "quiz", "learn", "hardware")


def test_outside_a_core_only_its_public_face_is_imported():
    """A module outside a core imports `app.formats`, never `app.formats.codec`: what a core offers is what its
    __init__ lists in __all__, so its insides can move without breaking the layers above."""
    outside = [path for path in sorted(APP.rglob("*.py"))
               if path.relative_to(APP).parts[0] not in FACES]
    assert any(path.name == "main.py" for path in outside)
    offending = [(path.relative_to(APP).as_posix(), name) for path in outside for name in _imports(path)
                 if any(name.startswith(f"app.{core}.") for core in FACES)]
    assert not offending


@pytest.mark.parametrize("core", FACES)
def test_a_core_names_its_public_face(core):
    package = __import__(f"app.{core}", fromlist=["__all__"])
    assert package.__all__ and all(hasattr(package, name) for name in package.__all__)
