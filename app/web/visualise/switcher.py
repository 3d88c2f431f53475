"""The visualiser's format pills, grouped by what the registry says of each format (kind, width, sign, blocks).

Groups, in order: IEEE-style floats of 16 bits and more with BF16 and TF32; FP8; FP6, FP4 and the unsigned E8M0;
the block formats (links to their block pages); integers; codebooks; and the custom layout when it is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.formats import BLOCK_FORMAT_IDS, CUSTOM_ID, FORMATS, SCALAR_FORMATS, FormatSpec
from app.web.blocks.pages import block_url
from app.web.platform.catalogs import N_, gettext
from app.web.platform.refusal_sentences import core_text
from app.web.visualise.present import visualise_url

# (id, label) of each group, in the order the page shows them (the label translated where shown)
GROUPS: tuple[tuple[str, str], ...] = (
    ("wide", N_("IEEE, BF16 and TF32")),
    ("fp8", "FP8"),
    ("narrow", N_("FP6, FP4 and E8M0")),
    ("block", N_("Block formats")),
    ("int", N_("Integers")),
    ("codebook", N_("Codebook")),
    ("custom", N_("Your layout")),
)


def group_of(spec: FormatSpec) -> str:
    """The id of the group a scalar format's pill is in."""
    if spec.id == CUSTOM_ID:
        return "custom"
    if spec.kind in ("int", "codebook", "block"):
        return spec.kind
    if spec.bits >= 16:
        return "wide"
    return "fp8" if spec.bits == 8 and spec.signed else "narrow"


def one_line(text: str) -> str:
    """The first sentence of a summary (in the page's language), for a tooltip."""
    head, dot, rest = text.partition(". ")
    return head + "." if dot and rest[:1].isupper() else text


@dataclass(frozen=True)
class Pill:
    spec: FormatSpec
    name: str
    href: str
    title: str
    block: bool  # a block format's page (of one block), which does not take the scalar value


@dataclass(frozen=True)
class PillGroup:
    id: str
    label: str
    pills: tuple[Pill, ...]


def format_groups(
    value: str, links: dict[str, Any], current: FormatSpec | None, prefix: str = ""
) -> list[PillGroup]:
    """Every format's pill in its group: the scalar ones show `value` with the page's choices (`links`, as
    visualise_url takes them), the block ones their block page; the custom layout shown, when it is one."""
    plain = {name: choice for name, choice in links.items() if name != "layout"}
    pills: dict[str, list[Pill]] = {group: [] for group, _ in GROUPS}
    for spec in SCALAR_FORMATS:
        href = visualise_url(spec.id, value=value, **plain)
        pills[group_of(spec)].append(Pill(spec, spec.name, href, one_line(core_text(spec.summary)), False))
    for format_id in BLOCK_FORMAT_IDS:
        spec = FORMATS[format_id]
        # NF4 is a codebook pill too: its block page's pill says that it is the block
        name = spec.name if spec.kind == "block" else gettext("%(name)s block") % {"name": spec.name.split(" (")[0]}
        title = one_line(core_text(spec.summary))
        pills["block"].append(Pill(spec, name, block_url(format_id, prefix=prefix), title, True))
    if current is not None and current.id == CUSTOM_ID:
        href = visualise_url(CUSTOM_ID, value=value, **links)
        pills["custom"].append(Pill(current, current.name, href, one_line(core_text(current.summary)), False))
    return [PillGroup(group, label, tuple(pills[group])) for group, label in GROUPS if pills[group]]


def scalar_links(groups: Sequence[PillGroup]) -> list[tuple[FormatSpec, str]]:
    """(format, link) of every scalar pill, in the page's order."""
    return [(pill.spec, pill.href) for group in groups for pill in group.pills if not pill.block]
