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


# What the other features may take from the scalar visualiser: how a value, its bits and its links are shown, the
# codec's facts for the pages' scripts, and the seed's parsing; never its pages, which hand block formats to blocks/
VISUALISER_SHARED = {"present", "codec_specs", "inputs", "serialise"}


def _web_modules(path: Path) -> set[str]:
    """The modules of app.web that `path` imports (`from app.web.blocks import present` names the module)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("app.web"):
            module = node.module or ""
            for alias in node.names:
                inner = f"{module}.{alias.name}"
                names.add(inner if (APP.parent / (inner.replace(".", "/") + ".py")).exists() else module)
    return names


def _web_graph() -> dict[str, set[str]]:
    return {".".join(path.relative_to(APP.parent).with_suffix("").parts): _web_modules(path)
            for path in sorted((APP / "web").rglob("*.py"))}


def test_no_import_of_the_web_layer_goes_round_in_a_circle():
    graph, done, path = _web_graph(), set(), []

    def visit(module: str) -> None:
        assert module not in path, " → ".join([*path[path.index(module):], module])
        if module in done:
            return
        path.append(module)
        for imported in graph.get(module, ()):
            visit(imported)
        path.pop()
        done.add(module)

    assert "app.web.blocks.pages" in graph["app.web.visualise.pages"]  # the check sees `from … import name`
    for module in graph:
        visit(module)


@pytest.mark.parametrize("feature", ["blocks", "compare", "formats", "home", "learn"])
def test_the_other_features_take_only_the_visualisers_shared_parts(feature):
    taken = {name.removeprefix("app.web.visualise.") for module, names in _web_graph().items()
             if module.startswith(f"app.web.{feature}.") for name in names if name.startswith("app.web.visualise")}
    assert taken <= VISUALISER_SHARED
