"""Quiz questions, one class per type (single, multiple, numeric, bits), and how their values are shown."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, Literal, TypeVar

from app.formats import Encoding, Real, decode, get_format, next_down, next_up
from app.quiz.messages import N_, Message

QuestionType = Literal["single", "multiple", "numeric", "bits"]
QUESTION_TYPES: tuple[QuestionType, ...] = ("single", "multiple", "numeric", "bits")


@dataclass(frozen=True)
class Choice:
    """One choice of a choice question, with why it is right or wrong; a generated choice also has the two as
    the core's messages (`messages`: text, explanation), for the web layer to word in the page's language. A text
    that is a plain string there is a name or a value, the same in every language."""

    text: str
    explanation: str
    messages: tuple[str | Message, Message] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, text: str | Message, explanation: Message) -> Choice:
        """A generated choice: in English its messages filled in."""
        return cls(str(text), str(explanation), (text, explanation))


@dataclass(frozen=True, kw_only=True)
class Question:
    """What every question has; `explanation` is the reason behind the answer, shown after answering."""

    type: ClassVar[QuestionType]
    id: str
    topic: str
    prompt: str
    explanation: str = ""
    # A generated question's prompt and explanation as the core's messages (app/quiz/messages.py); None for the
    # bank's questions, which are translated in the bank (quiz/<language>/)
    messages: tuple[Message, Message] | None = field(default=None, compare=False, repr=False)

    @property
    def choices(self) -> tuple[str, ...] | None:
        """The texts of the choices, in order, or None for questions answered by typing."""
        return None

    def public(self) -> dict[str, object]:
        """What the browser may see before the question is answered: no answer, no explanation."""
        view: dict[str, object] = {"id": self.id, "type": self.type, "prompt": self.prompt}
        if self.choices is not None:
            view["choices"] = list(self.choices)
        return view


@dataclass(frozen=True, kw_only=True)
class ChoiceQuestion(Question):
    """A question answered by picking choices by their index (0 for the first)."""

    options: tuple[Choice, ...]
    answers: frozenset[int]

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(option.text for option in self.options)


@dataclass(frozen=True, kw_only=True)
class SingleChoice(ChoiceQuestion):
    """Exactly one choice is right."""

    type: ClassVar[QuestionType] = "single"


@dataclass(frozen=True, kw_only=True)
class MultipleSelect(ChoiceQuestion):
    """Every right choice, and no other, must be picked."""

    type: ClassVar[QuestionType] = "multiple"


@dataclass(frozen=True, kw_only=True)
class Numeric(Question):
    """A number, right when within `tolerance` of the answer (a fraction of |answer| when `relative`), or, when
    the prompt asks for `figures` significant figures, within half a unit of the last of them: every answer
    rounded to that many figures counts, whichever way the tie went, and one figure fewer does not."""

    type: ClassVar[QuestionType] = "numeric"
    answer: Fraction
    tolerance: Fraction = Fraction(0)
    relative: bool = False
    figures: int | None = None

    def __post_init__(self) -> None:
        if self.figures is not None and (self.figures < 1 or self.tolerance or not self.answer):
            raise ValueError("figures is a positive count, for a nonzero answer, and replaces a tolerance")

    @property
    def allowed_error(self) -> Fraction:
        """How far an answer may be from the exact one and still count."""
        if self.figures is not None:
            return Fraction(10) ** (leading_exponent(self.answer) - self.figures + 1) / 2
        return self.tolerance * abs(self.answer) if self.relative else self.tolerance

    def accepts(self, value: Fraction) -> bool:
        return abs(value - self.answer) <= self.allowed_error


@dataclass(frozen=True, kw_only=True)
class BitPattern(Question):
    """A bit pattern of one scalar format, compared as an integer."""

    type: ClassVar[QuestionType] = "bits"
    format: str
    answer: int


Q = TypeVar("Q", bound=Question)


def worded(kind: type[Q], *, prompt: Message, explanation: Message, **fields: Any) -> Q:
    """A generated question whose prompt and explanation are messages: in English, the messages filled in."""
    return kind(prompt=str(prompt), explanation=str(explanation), messages=(prompt, explanation), **fields)


def show_bits(format_id: str, bits: int) -> str:
    """A pattern as a person reads it: hex, then binary split into sign, exponent and mantissa fields."""
    return str(bits_message(format_id, bits))


def bits_message(format_id: str, bits: int) -> Message:
    """show_bits as a message: 0x3c00 (binary 0 01111 0000000000)."""
    encoding = decode(get_format(format_id), bits)
    spec, binary = encoding.format, encoding.binary
    if spec.kind == "float":
        cuts = [spec.sign_bits, spec.sign_bits + spec.exponent_bits]
        fields = [binary[: cuts[0]], binary[cuts[0] : cuts[1]], binary[cuts[1] :]]
        binary = " ".join(part for part in fields if part)
    return Message(N_("%(hex)s (binary %(binary)s)"), {"hex": encoding.hex, "binary": binary})


def approx(x: Fraction, figures: int = 3) -> str:
    """A value rounded to three (or `figures`) significant figures, and said to be: ≈ 6.1e-5."""
    mantissa, _, exponent = f"{float(x):.{figures}g}".partition("e")
    return f"≈ {mantissa}e{int(exponent)}" if exponent else f"≈ {mantissa}"


def leading_exponent(x: Fraction) -> int:
    """The power of ten of the first significant digit of x ≠ 0, exactly: 2 for 448, −7 for 2^−23."""
    magnitude = abs(x)
    exponent = len(str(magnitude.numerator)) - len(str(magnitude.denominator))
    while Fraction(10) ** exponent > magnitude:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= magnitude:
        exponent += 1
    return exponent


def anatomy(encoding: Encoding) -> Message:
    """How the fields of a float pattern make its value: sign, exponent field, mantissa field, significand."""
    spec, exponent = encoding.format, encoding.exponent or 0
    exponent_note = (Message(N_("exponent field 0, a subnormal, so 2^%(exponent)s"), {"exponent": exponent})
                     if encoding.cls == "subnormal" else
                     Message(N_("exponent field %(field)s − bias %(bias)s = %(exponent)s"),
                             {"field": encoding.exponent_field, "bias": spec.bias, "exponent": exponent}))
    return Message(
        N_("%(bits)s: sign %(sign)s, %(exponent_note)s, mantissa field %(mantissa)s, so the value is "
           "%(significand)s (binary) × 2^%(exponent)s = %(value)s"),
        {"bits": bits_message(spec.id, encoding.bits), "sign": encoding.sign, "exponent_note": exponent_note,
         "mantissa": f"{encoding.mantissa_field:0{spec.mantissa_bits}b}",
         "significand": f"{'−' if encoding.sign else ''}{encoding.significand_binary}", "exponent": exponent,
         "value": encoding.value.exact_string()},
    )


def rounding_story(x: Real, stored: Encoding) -> Message:
    """Which value x is stored as, and between which two neighbours it was rounded."""
    value = stored.value.exact_string()
    if stored.value == x:
        return Message(N_("%(hex)s = %(value)s exactly: it is representable"), {"hex": stored.hex, "value": value})
    lower, upper = (stored, next_up(stored)) if stored.value.fraction < x.fraction else (next_down(stored), stored)
    assert lower is not None and upper is not None  # x lies strictly between two finite values
    return Message(N_("%(hex)s = %(value)s, the nearer of the two values around it, %(lower)s and %(upper)s (a tie "
                      "would go to the one with an even mantissa)"),
                   {"hex": stored.hex, "value": value, "lower": lower.value.exact_string(),
                    "upper": upper.value.exact_string()})
