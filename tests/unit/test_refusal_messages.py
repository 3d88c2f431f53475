"""Every refusal the formats core raises carries an N_-marked English template and its parameters
(app/messages.py): str() is exactly the English sentence the API and static/js/codec.js give, and the
template is in locales/messages.pot for the pages to translate."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import app.formats as formats_package
from app.formats import block_inputs, codec, custom, parse, registry, rounding, summation, vector
from app.messages import Phrase
from app.refusal import Refusal
from tests.helpers.refusal_cases import CASES

ROOT = Path(__file__).resolve().parents[2]
FORMATS_DIR = ROOT / "app" / "formats"


def _template_ids() -> set[str]:
    with (ROOT / "locales" / "messages.pot").open("rb") as pot:
        return {message.id for message in read_po(pot) if message.id}


def _refusal(call):
    with pytest.raises(Refusal) as caught:
        call()
    return caught.value


def _phrases(params) -> list[Phrase]:
    return [value for value in params.values() if isinstance(value, Phrase)]


@pytest.mark.parametrize(("name", "call", "english"), CASES, ids=[case[0] for case in CASES])
def test_the_refusal_keeps_its_english_sentence_and_carries_its_template(name, call, english):
    error = _refusal(call)
    assert str(error) == english
    assert error.template is not None, name
    assert error.template % error.params == english
    assert all(isinstance(value, str) for value in error.params.values())
    templates = _template_ids()
    assert error.template in templates
    assert all(phrase.template in templates and phrase.template % phrase.params == phrase
               for phrase in _phrases(error.params))


def _refusal_classes() -> set[str]:
    modules = [module for _, module in inspect.getmembers(formats_package, inspect.ismodule)]
    modules += [block_inputs, codec, custom, parse, registry, rounding, summation, vector]
    return {name for module in modules for name, value in vars(module).items()
            if isinstance(value, type) and issubclass(value, Refusal)}


def _calls(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def test_every_refusal_made_in_the_formats_core_has_a_marked_template():
    classes = _refusal_classes()
    assert {"InputError", "LayoutError", "NotScalarError", "NoFastPathError", "NotSummableError",
            "UnknownFormatError"} <= classes
    made = 0
    for path in sorted(FORMATS_DIR.glob("*.py")):
        for call in _calls(path):
            if not (isinstance(call.func, ast.Name) and call.func.id in classes):
                continue
            made += 1
            where = f"{path.name}:{call.lineno}"
            assert not call.args, f"{where} gives a sentence, not a template"
            template = next((kw.value for kw in call.keywords if kw.arg == "template"), None)
            assert isinstance(template, ast.Call) and getattr(template.func, "id", None) == "N_", where
            assert isinstance(template.args[0], ast.Constant), f"{where}: the template must be a plain string"
    assert made >= 36


def test_every_marked_sentence_of_the_formats_core_is_in_the_template():
    marked = {call.args[0].value for path in sorted(FORMATS_DIR.glob("*.py")) for call in _calls(path)
              if isinstance(call.func, ast.Name) and call.func.id == "N_"}
    assert marked and marked <= _template_ids()


# The core's other sentences, marked where defined: the formats' summaries (registry.py), the notes of an encode
# (codec.py) and a custom layout's summary (custom.py), which pages translate with core_text
NOT_REFUSALS = {"_encode_float", "_encode_int", "_encode_codebook", "SATURATING", "_STYLE_WORDS", "_BITS", "_float",
                "SCALAR_FORMATS", "BLOCK_FORMATS", "_FLOAT32", "DOT_METHODS", "DOT_DISTRIBUTIONS", "TENSOR_CORE_WORDS",
                "SPECIAL_RULES", "ROUNDING_NAMES", "rule"}


def _other_sentences() -> set[str]:
    found = set()
    for path in sorted(FORMATS_DIR.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            names = {node.name} if isinstance(node, ast.FunctionDef) else {
                t.id for t in getattr(node, "targets", [getattr(node, "target", None)]) if isinstance(t, ast.Name)}
            raised = {id(n) for r in ast.walk(node) if isinstance(r, ast.Raise) for n in ast.walk(r)}
            if names & NOT_REFUSALS or "custom_format" in names:
                found |= {c.args[0].value for c in ast.walk(node) if isinstance(c, ast.Call) and id(c) not in raised
                          and isinstance(c.func, ast.Name) and c.func.id == "N_"}
    return found


def test_the_cases_cover_every_template_of_the_refusals():
    refused = set()
    for _, call, _ in CASES:
        error = _refusal(call)
        refused |= {error.template, *(phrase.template for phrase in _phrases(error.params))}
    marked = {call.args[0].value for path in sorted(FORMATS_DIR.glob("*.py")) for call in _calls(path)
              if isinstance(call.func, ast.Name) and call.func.id == "N_"}
    others = _other_sentences()
    assert {spec.summary for spec in registry.FORMATS.values()} <= others
    assert marked - others == refused


def test_a_refusal_without_a_template_is_its_sentence():
    error = Refusal("Just a sentence, 100% English.")
    assert error.template is None and dict(error.params) == {}
    assert str(error) == "Just a sentence, 100% English."


def test_a_phrase_is_its_english():
    phrase = Phrase("%(name)s with more than 15 digits", {"name": "bias"})
    assert phrase == "bias with more than 15 digits" and phrase.params == {"name": "bias"}
    assert phrase.template == "%(name)s with more than 15 digits"
