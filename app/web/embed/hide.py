"""What a teacher may hide in a framed page: `?hide=` flags, as TensorFlow Playground's, from a small fixed
vocabulary per kind of page.

A framed page (templates/embed/base.html) marks the flags it was asked for (`data-hide="settings intro"`), and the
parts of the page templates that can go carry `data-hide-group="<name>"`; static/css/embed.css hides each marked
group, so no page has code of its own for it. Flags are repeatable or comma-separated (`hide=intro&hide=controls`,
`hide=intro,controls`); a name outside the page's vocabulary is refused with a sentence naming the allowed ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl

from app.refusal import Refusal
from app.web.platform.catalogs import N_

PARAM = "hide"


@dataclass(frozen=True)
class Part:
    """One part of a page a teacher may hide: its flag and what the Embed dialog calls it."""

    name: str
    label: str


INTRO = Part("intro", N_("the introduction"))  # the labels translated where shown (templates/embed/_share.html)
EMBED = Part("embed", N_("the Embed button"))

# Each kind of embeddable page (app/web/embed/pages.py `Embeddable.kind`) and what of it can be hidden, in page order.
VOCABULARY: dict[str, tuple[Part, ...]] = {
    "train": (
        INTRO, Part("scenarios", N_("the scenario links")),
        Part("settings", N_("the settings (recipes and all fields)")), Part("memory", N_("the memory table")), EMBED,
    ),
    "visualise": (
        INTRO, Part("controls", N_("the value, rounding and overflow controls")),
        Part("formats", N_("the links to other formats")), Part("numberline", N_("the number line")), EMBED,
    ),
    "block": (
        INTRO, Part("presets", N_("the preset blocks")), Part("controls", N_("the values box")), EMBED,
    ),
    "compare": (
        INTRO, Part("controls", N_("the value, rounding and overflow controls")),
        Part("blocks", N_("the block formats table")), EMBED,
    ),
    "arithmetic": (
        INTRO, Part("controls", N_("the operation's controls and the tape's steps")),
        Part("lessons", N_("the lessons")), EMBED,
    ),
    "dot": (
        INTRO, Part("controls", N_("the vectors, format and method controls")),
        Part("explain", N_("the explanation of the methods and the tensor-core models")), EMBED,
    ),
    "accumulation": (
        INTRO, Part("controls", N_("the format, values and method controls")),
        Part("explain", N_("the explanation of the methods")), EMBED,
    ),
}


class UnknownHide(Refusal):
    """A hide flag the page does not have."""

    status = 400


def requested(query: str) -> list[str]:
    """Every hide flag in the query string, repeated or comma-separated, in order, blanks left out."""
    return [name.strip() for key, value in parse_qsl(query, keep_blank_values=True) if key == PARAM
            for name in value.split(",") if name.strip()]


def hidden(kind: str, query: str) -> tuple[str, ...]:
    """The parts of a page of `kind` that its query hides, each once; UnknownHide for a name it does not have."""
    allowed = [part.name for part in VOCABULARY[kind]]
    names = requested(query)
    unknown = [name for name in names if name not in allowed]
    if unknown:
        shown = unknown[0] if len(unknown[0]) <= 40 else unknown[0][:40] + "…"
        raise UnknownHide(f"This page cannot hide “{shown}”; hide takes {', '.join(allowed)} "
                          "(repeated, or separated by commas).")
    return tuple(dict.fromkeys(names))


def without_hide(query: str) -> list[tuple[str, str]]:
    """The query's other parameters, in order: the state a form that changes only the flags sends back."""
    return [(key, value) for key, value in parse_qsl(query, keep_blank_values=True) if key != PARAM]
