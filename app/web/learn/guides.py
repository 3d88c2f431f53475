"""The guides under /learn, as data: slug, title, summary, related guides and reading time.

The words themselves live in templates/learn/<slug>.html; the reading time is counted from them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property

from app.web.platform.catalogs import N_
from app.web.platform.rendering import ROOT

WORDS_PER_MINUTE = 220  # silent reading of non-fiction, the middle of the usual 200-250
_TEMPLATE_SYNTAX = re.compile(r"{#.*?#}|{%.*?%}|{{.*?}}", re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_WORD = re.compile(r"[^\W_](?:[\w'’.,-]*[^\W_])?")


@dataclass(frozen=True)
class Guide:
    slug: str
    title: str  # English, marked N_: shown translated, {{ _(guide.title) }}
    summary: str
    related: tuple[str, ...]  # slugs of the guides to read next

    @property
    def url(self) -> str:
        return f"/learn/{self.slug}"

    @property
    def template(self) -> str:
        return f"learn/{self.slug}.html"

    @cached_property
    def words(self) -> int:
        """Words a reader reads: the template's text, without markup and template code."""
        source = (ROOT / "templates" / self.template).read_text(encoding="utf-8")
        return len(_WORD.findall(_TAG.sub(" ", _TEMPLATE_SYNTAX.sub(" ", source))))

    @property
    def minutes(self) -> int:
        return max(1, math.ceil(self.words / WORDS_PER_MINUTE))


GUIDES: dict[str, Guide] = {g.slug: g for g in (
    Guide(
        "number-formats", N_("Number formats"),
        N_("How sign, exponent and mantissa store a number, why range and precision pull against each other, and "
           "where FP64, FP32, TF32, FP16, BF16, FP8, FP6, FP4 and the MX formats are used."),
        ("mixed-precision-training", "quantisation"),
    ),
    Guide(
        "mixed-precision-training", N_("Mixed-precision training"),
        N_("Training in 16 and 8 bits without losing what matters: FP32 master weights, loss scaling, FP32 "
           "accumulation, what autocast keeps in FP32, and what it all saves."),
        ("number-formats", "quantisation"),
    ),
    Guide(
        "quantisation", N_("Quantisation"),
        N_("Storing a trained network in 8 or 4 bits: INT8, INT4 and NF4, post-training quantisation against "
           "quantisation-aware training, block scaling, and the error each format adds, measured live."),
        ("number-formats", "mixed-precision-training"),
    ),
)}


def related(guide: Guide) -> list[Guide]:
    return [GUIDES[slug] for slug in guide.related]
