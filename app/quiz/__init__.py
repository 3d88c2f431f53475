"""The quiz core: the question bank, generated questions, drawing an attempt, grading, certificate ids, and the
signed forms of a certificate (signing, the Open Badges credential, its Data Integrity proof, revocation lists).

Imports the standard library, numpy, ml_dtypes, app.formats and the cryptography, JOSE and JSON-LD libraries
the signatures need; never the web or storage layers (tests/unit/test_layers.py holds that).
"""

from app.quiz.bank import BANK_DIR, Bank, BankError, Topic, load_bank
from app.quiz.certificate_id import (
    EXAMPLE_ID,
    InvalidCertificateId,
    is_well_formed,
    new_certificate_id,
    normalise_certificate_id,
)
from app.quiz.draw import DEFAULT_COUNT, draw_attempt, public_question, question_from_id, shown_id, stored_id
from app.quiz.generators import GENERATORS, UnknownQuestion
from app.quiz.grading import AnswerError, Feedback, grade, passed, right_answer, score
from app.quiz.questions import (
    QUESTION_TYPES,
    BitPattern,
    Choice,
    ChoiceQuestion,
    MultipleSelect,
    Numeric,
    Question,
    SingleChoice,
)

__all__ = [
    "EXAMPLE_ID",
    "BANK_DIR",
    "DEFAULT_COUNT",
    "GENERATORS",
    "QUESTION_TYPES",
    "AnswerError",
    "Bank",
    "BankError",
    "BitPattern",
    "Choice",
    "ChoiceQuestion",
    "Feedback",
    "InvalidCertificateId",
    "MultipleSelect",
    "Numeric",
    "Question",
    "SingleChoice",
    "Topic",
    "UnknownQuestion",
    "draw_attempt",
    "public_question",
    "shown_id",
    "stored_id",
    "grade",
    "is_well_formed",
    "load_bank",
    "new_certificate_id",
    "normalise_certificate_id",
    "passed",
    "question_from_id",
    "right_answer",
    "score",
]
