"""A run's numbers as the /train page shows them: the final table and the memory table."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from app.training import COLLAPSE, RECIPES, OptimizerId, RecipeId, bytes_per_param
from app.web.platform.catalogs import N_, gettext, local_digits, prose_decimal
from app.web.platform.languages import ENGLISH_CODE, current_language

_BYTES_PER_GB = Decimal(10**9)
# the column heads, marked here and translated where the page shows them
MEMORY_PARTS = (("weights", N_("Weights")), ("weight_copies", N_("Low-precision weight copies")),
                ("master_weights", N_("FP32 master copy")), ("gradients", N_("Gradients")),
                ("optimizer_states", N_("Optimizer states")), ("total", N_("Total")))


def approx(value: float | None, digits: int = 4) -> str:
    """A number to `digits` significant digits, marked "≈" when that rounds it; "—" for NaN or infinity."""
    if value is None:
        return "—"
    if float(value).is_integer() and abs(value) < 10**15:
        return str(int(value))
    text = f"{value:.{digits}g}"
    return text if float(text) == value else "≈" + text


def percent(share: float | None) -> str:
    return "—" if share is None else approx(100 * share, 3) + "%"


@dataclass(frozen=True)
class FinalRow:
    """One recipe's line of the table of a finished run; `exact` keeps each shown number in full (repr)."""

    recipe: str
    name: str
    shown: dict[str, str]
    exact: dict[str, str]
    diverged: str | None  # the sentence of the run's diverged event, in the page's language where it can be
    diverged_english: bool = False  # the sentence left as the run's English


FINAL_COLUMNS = (
    ("final_loss", N_("Final loss")), ("final_accuracy", N_("Accuracy")), ("test_loss", N_("Test loss")),
    ("test_accuracy", N_("Test accuracy")), ("skipped_steps", N_("Skipped steps")),
    ("nonfinite", N_("Non-finite gradients")), ("underflow", N_("Mean underflow")),
    ("loss_scale", N_("Final loss scale")),
)


def final_rows(result: dict[str, Any]) -> list[FinalRow]:
    rows = []
    for recipe_id, r in result["recipes"].items():
        underflow = r["underflow_fraction"]
        values: dict[str, Any] = {
            "final_loss": r["final_loss"], "final_accuracy": r["final_accuracy"], "test_loss": r["test_loss"],
            "test_accuracy": r["test_accuracy"], "skipped_steps": len(r["skipped_steps"]),
            "nonfinite": sum(r["nonfinite_count"]), "underflow": sum(underflow) / len(underflow),
            "loss_scale": r["loss_scale"][-1],
        }
        shown = {name: approx(value) for name, value in values.items()}
        for name in ("final_accuracy", "test_accuracy", "underflow"):
            shown[name] = percent(values[name])
        shown = {name: local_digits(text) for name, text in shown.items()}  # 0,1234 in Turkish and Greek
        diverged = r["diverged"] and _diverged(r["diverged"], r["skipped_steps"])
        rows.append(FinalRow(recipe_id, r["name"], shown, {name: repr(v) for name, v in values.items()},
                             diverged, diverged is not None and diverged == (r["diverged"] or {}).get("detail")))
    return rows


def _diverged(event: dict[str, Any], skipped_steps: list[int]) -> str:
    """The diverged event's sentence in the page's language: its first step is where the unbroken run of skipped
    steps up to the event's step began (as runner.py counts it); the English detail when that does not rebuild it."""
    skipped, since = set(skipped_steps), event["step"]
    while since - 1 in skipped:
        since -= 1
    params = {"since": since, "step": event["step"]}
    if COLLAPSE % params != event["detail"]:
        return str(event["detail"])
    return gettext(COLLAPSE) % params


@dataclass(frozen=True)
class MemoryRow:
    recipe: RecipeId
    name: str
    bytes: dict[str, int]  # per parameter, by part
    gigabytes: str  # the total for the model size asked for


def gigabytes(n_bytes: int) -> str:
    """Bytes in GB (10^9 bytes): whole GB from 1000 up, else four significant digits; "≈" when rounded. In the
    page's notation (112.000 in Turkish, where 112,000 would read as 112), but for a number in e-notation."""
    exact = Decimal(n_bytes) / _BYTES_PER_GB
    text = f"{round(exact):,}" if exact >= 1000 else f"{float(exact):.4g}"
    plain = Decimal(text.replace(",", ""))
    if current_language().code != ENGLISH_CODE and "e" not in text:
        text = prose_decimal(plain, max(-plain.as_tuple().exponent, 0))  # type: ignore[operator]
    return text if plain == exact else "≈" + text


def memory_rows(recipes: tuple[RecipeId, ...], optimizer: OptimizerId, model_size: int) -> list[MemoryRow]:
    rows = []
    for recipe_id in recipes:
        parts = bytes_per_param(RECIPES[recipe_id], optimizer)
        rows.append(MemoryRow(recipe_id, RECIPES[recipe_id].name, parts, gigabytes(parts["total"] * model_size)))
    return rows


_SIZE_WORDS = ((10**12, N_("%(number)s trillion")), (10**9, N_("%(number)s billion")),
               (10**6, N_("%(number)s million")), (10**3, N_("%(number)s thousand")))


def in_words(n: int) -> str:
    """A parameter count as people say it: 7 billion, 350 million (7 milyar in Turkish, 1,5 milyar for 1.5)."""
    for size, words in _SIZE_WORDS:
        if n >= size:
            number = approx(n / size)
            if current_language().code != ENGLISH_CODE:
                exact = Decimal(number.removeprefix("≈"))
                shown = prose_decimal(exact, max(-exact.as_tuple().exponent, 0))  # type: ignore[operator]
                number = ("≈" if number.startswith("≈") else "") + shown
            return gettext(words) % {"number": number}
    return str(n)
