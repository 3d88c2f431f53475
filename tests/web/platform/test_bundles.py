"""The pages' entry modules load as minified bundles (static/bundle/, built by `make setup` with esbuild): the
pages name the bundle, it is served for ever under the static version, it carries what it imports, and the server
falls back to the source modules when the bundle is missing or older than its sources."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from app.web.platform.bundles import STAMP, bundles_are_fresh, entry_module_path
from app.web.platform.rendering import STATIC_DIR, static_version
from app.web.platform.script_words import WORDS_FILE
from app.web.platform.static_files import IMMUTABLE
from tests.helpers.html import STATIC_IMPORT, Elements

ROOT = Path(__file__).resolve().parents[3]
# The page of each entry module, and the entry it loads
PAGES = {
    "/visualise/float16?value=0.1": "visualiser.js",
    "/learn/number-formats": "visualiser.js",
    "/compare?value=0.3952": "compare.js",
    "/visualise/mxfp4?preset=outlier": "block_view.js",
    "/train": "train.js",
    "/embed/compare?value=0.1": "embed.js",
    "/": "languages.js",
    "/learn/mixed-precision-training": "guide.js",
    "/arithmetic": "arithmetic.js",
    "/dot": "dot.js",
}


def makefile_entries() -> set[str]:
    """The entry modules the Makefile bundles (its BUNDLE_ENTRIES)."""
    line = re.search(r"^BUNDLE_ENTRIES := (.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert line
    return set(line.group(1).split())


def test_every_entry_module_a_template_names_is_one_the_makefile_bundles():
    named = {m for path in (ROOT / "templates").rglob("*.html")
             for m in re.findall(r"entry_module\('([^']+)'\)", path.read_text())}
    assert named == makefile_entries() == set(PAGES.values())
    assert all((STATIC_DIR / "js" / name).is_file() for name in named)


@pytest.mark.parametrize("url", PAGES)
def test_the_page_loads_its_bundle_which_imports_nothing(client, url):
    page = Elements(client.get(url).text)
    modules = [a["src"] for tag, a in page.tags if tag == "script" and a.get("type") == "module"]
    modules += [a["data-figure-module"] for a in page.having("data-figure-module")]  # a guide's figure's script
    bundle = [src for src in modules if re.fullmatch(rf"/static/[0-9a-f]{{12}}/bundle/{PAGES[url]}", src)]
    assert bundle, f"{url} loads {modules}, not its bundle: run `make setup`"
    response = client.get(bundle[0])
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    assert response.headers["cache-control"] == IMMUTABLE
    assert not STATIC_IMPORT.findall(response.text)  # what it imports is inside it
    carried = _carried(PAGES[url])
    assert len(carried) >= 1 and len(response.content) < sum(  # minified: less than the sources it carries
        (STATIC_DIR / "js" / name).stat().st_size for name in carried)


def test_beside_the_bundles_the_build_writes_the_words_of_every_entry():
    """What each entry's script says (app/web/platform/script_words_build.py), found in the modules esbuild's
    metafile says it imports; tests/unit/test_script_words.py holds them to what the sources say."""
    meta = json.loads((STATIC_DIR / "bundle" / ".meta.json").read_text())
    bundled = {Path(output["entryPoint"]).name for output in meta["outputs"].values() if "entryPoint" in output}
    words = json.loads((STATIC_DIR / "bundle" / WORDS_FILE).read_text(encoding="utf-8"))
    assert set(words) == bundled == makefile_entries()
    assert words["visualiser.js"] and not words["languages.js"]  # the visualiser says sentences; the switcher none


def _carried(entry: str) -> set[str]:
    """The entry module and every module it imports, followed to the end."""
    carried, pending = set(), [entry]
    while pending:
        name = pending.pop()
        if name not in carried:
            carried.add(name)
            pending += [imported.removeprefix("./") for imported in
                        STATIC_IMPORT.findall((STATIC_DIR / "js" / name).read_text(encoding="utf-8"))]
    return carried


def write_sources(static: Path, built_at: float, source_at: float) -> None:
    """A static folder with one source module and its bundle, the stamp and the source dated as given."""
    (static / "js").mkdir(parents=True)
    (static / "bundle").mkdir()
    (static / "js" / "page.js").write_text("export const a = 1;\n")
    (static / "bundle" / "page.js").write_text("const a=1;export{a};\n")
    (static / "bundle" / STAMP).touch()
    os.utime(static / "bundle" / STAMP, (built_at, built_at))
    os.utime(static / "js" / "page.js", (source_at, source_at))


def test_a_fresh_bundle_is_used(tmp_path):
    write_sources(tmp_path, built_at=2_000, source_at=1_000)
    assert bundles_are_fresh(tmp_path)
    assert entry_module_path("page.js", True) == "bundle/page.js"


def test_a_bundle_older_than_a_source_falls_back_to_the_sources(tmp_path):
    write_sources(tmp_path, built_at=1_000, source_at=2_000)
    assert not bundles_are_fresh(tmp_path)
    assert entry_module_path("page.js", False) == "js/page.js"


def test_no_bundle_falls_back_to_the_sources(tmp_path):
    write_sources(tmp_path, built_at=2_000, source_at=1_000)
    (tmp_path / "bundle" / STAMP).unlink()
    assert not bundles_are_fresh(tmp_path)


def test_the_static_version_changes_with_the_bundle_and_not_with_its_stamp(tmp_path):
    write_sources(tmp_path, built_at=2_000, source_at=1_000)
    before = static_version(tmp_path)
    os.utime(tmp_path / "bundle" / STAMP, (3_000, 3_000))
    assert static_version(tmp_path) == before
    (tmp_path / "bundle" / "page.js").write_text("const a=2;export{a};\n")
    assert static_version(tmp_path) != before
