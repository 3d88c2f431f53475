"""Whether the pages load their entry modules bundled and minified (static/bundle/, built by the Makefile with
esbuild) or as the source modules of static/js/ that import one another.

The bundles are used only while they are fresh: the Makefile's stamp exists and is at least as new as every source
module. A server started without `make` (no bundle yet) or after a source was edited (a stale bundle) falls back
to the source modules, which behave the same and only weigh more, and says so once in the log, rather than
serving code that no longer matches its sources or a page whose script 404s. The words the scripts say
(app/web/platform/script_words.py) are built beside the bundles and judged by the same stamp."""

from __future__ import annotations

import logging
from pathlib import Path

BUNDLE_DIR = "bundle"  # under static/: what `make setup` and `make run` build
SOURCE_DIR = "js"
STAMP = ".built"  # touched by the Makefile once every bundle is written; a dot file, so outside the static digest

log = logging.getLogger(__name__)


def bundles_are_fresh(static_dir: Path) -> bool:
    """Whether static_dir/bundle holds bundles built since the last change to any module under static_dir/js."""
    newer = sources_newer_than_bundles(static_dir)
    if newer is None:
        log.warning("No script bundles in %s (run `make setup`): the pages load the source modules.",
                    static_dir / BUNDLE_DIR)
    elif newer:
        log.warning("The script bundles are older than %s (run `make setup`): the pages load the source modules.",
                    ", ".join(newer))
    return newer == []


def sources_newer_than_bundles(static_dir: Path) -> list[str] | None:
    """The source modules under static_dir/js changed since the bundles were built (their names, sorted; none
    when the bundles are fresh), or None when no bundles were built (no stamp)."""
    stamp = static_dir / BUNDLE_DIR / STAMP
    if not stamp.is_file():
        return None
    built = stamp.stat().st_mtime
    return sorted(p.name for p in (static_dir / SOURCE_DIR).rglob("*.js") if p.stat().st_mtime > built)


def entry_module_path(name: str, bundled: bool) -> str:
    """The path under static/ of the page entry module `name` (visualiser.js): its bundle, or its source."""
    return f"{BUNDLE_DIR if bundled else SOURCE_DIR}/{name}"
