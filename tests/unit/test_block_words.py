"""A block page carries the words its script can say, and no others (the block page's NEVER_SAID,
script_words' `unsaid`, applied to the words `make` finds: script_words_build.py): what it leaves out is proved never
said here, from the scripts' sources. A function the page's script never runs (none of what the page's modules import
reaches it); and a codec encoder's sentences, which are the note of the value it stores, and the block view reads no
note. The block's own sentences are the page's markup (templates/_block_*.html), not the script's. The browser tests
hold what the script shows to the server's page in every language (tests/browser/test_block_instant.py), which a
sentence missing from the data would break."""

from __future__ import annotations

import re

import pytest

from app.web.blocks.pages import NEVER_SAID
from app.web.platform.languages import LANGUAGES, speaking
from app.web.platform.script_words import SCRIPTS_DIR, script_ids, script_words
from app.web.platform.script_words_build import said_in, top_level

IMPORT = re.compile(r'import\s*\{([^}]*)\}\s*from\s*"\./([\w-]+\.js)"')
LOADS = re.compile(r'\b(?:from|import)\s+"\./([\w-]+\.js)"')
NAME = re.compile(r"[A-Za-z_$][\w$]*")
# a comment on lines of its own (`// ...`, `/* ... */`): no code shares them
COMMENT = re.compile(r"^[ \t]*(?://[^\n]*|/\*.*?\*/[ \t]*)$", re.M | re.S)
ENCODERS = {"encodeFloat", "encodeInt", "encodeCodebook"}  # codec.js's: each Phrase of theirs is a stored note


def source(module: str) -> str:
    return (SCRIPTS_DIR / module).read_text()


def statements(module: str) -> dict[str | None, str]:
    """The source of each top-level declaration of a module, by its name (None: the statements declaring none),
    without the comments on lines of their own."""
    text = COMMENT.sub(lambda m: "\n" * m[0].count("\n"), source(module))  # the lines kept where they are
    lines, starts = text.splitlines(), top_level(text)
    found: dict[str | None, str] = {}
    for (start, name), after in zip(starts, [*starts[1:], (len(lines) + 1, None)], strict=True):
        found[name] = found.get(name, "") + "\n".join(lines[start - 1 : after[0] - 1]) + "\n"
    return found


def imports(module: str) -> dict[str, set[str]]:
    """The names a module imports from each module it imports."""
    found: dict[str, set[str]] = {}
    for names, other in IMPORT.findall(source(module)):
        found.setdefault(other, set()).update(n.split(" as ")[0].strip() for n in names.split(",") if n.strip())
    return found


def closure(entry: str) -> list[str]:
    """The modules a page's script loads: `entry` and all it imports."""
    seen, pending = [], [entry]
    while pending:
        module = pending.pop(0)
        if module not in seen:
            seen.append(module)
            pending += list(imports(module))
    return seen


def loaded(entry: str) -> list[str]:
    """Every module a page's script loads, re-exports' modules too (`export { … } from "./x.js"`)."""
    seen, pending = [], [entry]
    while pending:
        module = pending.pop(0)
        if module not in seen:
            seen.append(module)
            pending += LOADS.findall(source(module))
    return seen


def reachable(module: str, entry: str = "block_view.js") -> set[str]:
    """The top-level declarations of `module` that the page of `entry` can run: from the names the page's other
    modules import of it and its own top-level statements, every declaration that a reached one names (a name in
    a string or a comment after code counts too: more is reached, never less)."""
    declared = statements(module)
    pending = [n for other in closure(entry) if other != module for n in imports(other).get(module, set())]
    pending += NAME.findall(declared.get(None, ""))
    reached: set[str] = set()
    while pending:
        name = pending.pop()
        if name in declared and name not in reached and name is not None:
            reached.add(name)
            pending += NAME.findall(declared[name])
    return reached


# -- what a block page leaves out is never said -----------------------------------------------------------------


@pytest.mark.parametrize("entry", sorted(NEVER_SAID))
def test_what_every_block_page_leaves_out_is_never_run_or_a_note_it_never_reads(entry: str):
    module, name = entry.split(":")
    assert module in closure("block_view.js") and name in statements(module)
    if name not in reachable(module):
        return  # never run on a block page
    assert module == "codec.js" and name in ENCODERS, f"{entry} runs on a block page"
    body = statements(module)[name]
    # its sentences are Phrases it says nothing of, and it returns only the Rounded value it stores (the Phrase
    # is that value's note: Rounded keeps its fifth argument as `note`) ...
    assert not re.search(r"\b(?:say|sayN|InputError)\(|\.said\b", body)
    assert "new Phrase(" in body
    returns = re.findall(r"\breturn\b\s*([\w.]+(?:\s+\w+)?)", body)
    assert returns and set(returns) <= {"stored", "new Rounded"}, returns
    assert "constructor(encoding, input, overflowed, underflowed, note = null)" in source("codec.js")
    # ... which no module of the block page reads (codec.js itself says none of its notes)
    for other in closure("block_view.js"):
        text = source(other)
        if other == "codec.js":
            assert not re.search(r"\.note\b", text)
        else:
            assert not re.search(r"\.note\b|[{,]\s*note\s*[,}]", text), other


def test_a_block_page_carries_what_its_script_can_say_and_not_the_rest():
    turkish = next(language for language in LANGUAGES if language.code == "tr")
    with speaking(turkish):
        words = script_words(["block_view.js"], (), NEVER_SAID)
    assert words is not None
    carried = set(words["sentences"]) | set(words["plurals"])
    said = {m if isinstance(m, str) else m[0] for m in script_ids("block_view.js", NEVER_SAID)}
    assert carried == said
    # the same as the sources say, every top-level statement of every module the page loads but NEVER_SAID's
    read = {m if isinstance(m, str) else m[0] for module in loaded("block_view.js")
            for name, text in statements(module).items() if f"{module}:{name}" not in NEVER_SAID
            for m, _ in said_in(text.encode(), module)}
    assert said == read
    everything = {m if isinstance(m, str) else m[0] for m in script_ids("block_view.js")}
    assert "Could not read %(input)s as a number. Accepted: %(accepted)s." in carried  # codec.js's refusals stay
    assert "element %(index)s: |error| = %(error)s" in carried  # and blocks.js's
    assert "Too small for this format: flushed to zero (underflow)." in everything - carried  # a note: never shown
    # how a scale was chosen is the page's markup, each rule's in its template, not a sentence of the script's
    assert not [m for m in everything if m.startswith(("QLoRA's NF4", "OCP MX v1.0", "Two levels"))]
