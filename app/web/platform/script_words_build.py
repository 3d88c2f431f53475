"""The words each page's script may say, found when `make` bundles the scripts, so that the server never reads them.

The Makefile runs esbuild with a metafile (which module imports which, as esbuild resolved them), then this module:

    python -m app.web.platform.script_words_build static/bundle/.meta.json static/bundle/.words.json

It writes, for each entry module bundled, every marker call (babel.cfg's JavaScript keywords: say, sayN, Phrase,
InputError, what `make messages` extracts with Babel's JavaScript extractor) that the entry and the modules it
imports make, in the order they are met (the entry first, then what it imports, breadth first, each module once),
each with where it is: the module and the top-level declaration holding it ("codec.js:encodeFloat"; the module
alone for a statement that declares nothing), so that a page may leave out what a function it never runs says
(script_words' `unsaid`). A plural is its [singular, plural]:

    {"visualiser.js": [["Stored value %(stored)s", "visualiser_fill.js:fill"], [["one", "many"], "codec.js"], …]}

app/web/platform/script_words.py reads that file once.
"""

from __future__ import annotations

import io
import json
import posixpath
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.extract import extract
from babel.messages.frontend import parse_mapping_cfg
from babel.util import pathmatch

from app.web.platform.script_words import Said

ROOT = Path(__file__).resolve().parents[3]
BABEL_CFG = ROOT / "babel.cfg"
SCRIPT_PATTERN_PROBE = "static/js/words.js"  # a script's path, as babel.cfg's sections match it

# A line at the margin that begins a top-level statement, and the name it declares, if any; a line that is indented,
# blank, a comment or the close of a bracket (`}`, `)`, `]`) continues the statement before it.
_STATEMENT = re.compile(r"[^\s/})\]]")
_DECLARES = re.compile(r"(?:export\s+)?(?:async\s+)?(?:function\*?\s*|class\s+|(?:const|let|var)\s+)([\w$]+)")


@cache
def script_extractor(config: Path = BABEL_CFG) -> tuple[str, dict[str, Any]]:
    """The extraction method and keywords babel.cfg gives the scripts (its section matching static/js/*.js): the
    marker calls `make messages` finds, and nothing else (not Babel's default gettext names, which no script calls
    and static/js/words.js does not answer to)."""
    with config.open() as source:
        method_map, options_map = parse_mapping_cfg(source, str(config))
    method = next(method for pattern, method in method_map if pathmatch(pattern, SCRIPT_PATTERN_PROBE))
    options = next(options for pattern, options in options_map.items() if pathmatch(pattern, SCRIPT_PATTERN_PROBE))
    return method, {name: spec or (1,) for name, spec in options["keywords"].items()}


def top_level(source: str) -> list[tuple[int, str | None]]:
    """Where each top-level statement of a module begins (its line, from 1) and what it declares (a function's,
    class's or constant's name; None for a statement that declares nothing)."""
    return [(number, declares[1] if (declares := _DECLARES.match(line)) else None)
            for number, line in enumerate(source.splitlines(), 1) if _STATEMENT.match(line)]


def said_in(source: bytes, module: str) -> Said:
    """Each id the module's source says, in order, with where: "module.js:declaration", or "module.js"."""
    method, keywords = script_extractor()
    statements = top_level(source.decode())
    found: Said = []
    for line, message, _comments, _context in extract(method, io.BytesIO(source), keywords):
        declared = next((name for start, name in reversed(statements) if start <= line), None)
        found.append((message if isinstance(message, str) else (message[0], message[1]),
                      f"{module}:{declared}" if declared else module))
    return found


def imported(meta: dict[str, Any], entry: str) -> list[str]:
    """The metafile's path of `entry` and of every module it imports, followed to the end, breadth first."""
    inputs = meta["inputs"]
    seen: list[str] = []
    pending = [entry]
    while pending:
        current = pending.pop(0)
        if current not in seen:
            seen.append(current)
            pending += [i["path"] for i in inputs[current].get("imports", []) if i["path"] in inputs]
    return seen


def build(meta: dict[str, Any], root: Path) -> dict[str, Said]:
    """Each bundled entry module's words (see above), by its name; the metafile's paths are relative to `root`."""
    words: dict[str, Said] = {}
    for output in meta["outputs"].values():
        entry = output.get("entryPoint")
        if entry is None:
            continue
        base = posixpath.dirname(entry)  # the entry's folder (static/js): modules are named from there
        words[posixpath.relpath(entry, base)] = [
            said for path in imported(meta, entry)
            for said in said_in((root / path).read_bytes(), posixpath.relpath(path, base))]
    return dict(sorted(words.items()))


def write(meta_path: Path, out: Path, root: Path) -> None:
    """The words of the entries esbuild bundled (its metafile at meta_path) into `out`, an id and its place a line."""
    words = build(json.loads(meta_path.read_text(encoding="utf-8")), root)
    entries = []
    for entry, said in words.items():
        lines = ",".join(f"\n  {json.dumps(place, ensure_ascii=False)}" for place in said)
        entries.append(f"{json.dumps(entry)}: [{lines}]")
    out.write_text("{" + ",\n".join(entries) + "}\n", encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m app.web.platform.script_words_build METAFILE WORDS_FILE")
    write(Path(sys.argv[1]), Path(sys.argv[2]), Path.cwd())
