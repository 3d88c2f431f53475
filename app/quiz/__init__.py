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
from app.quiz.credential import (
    Wording,
    credential,
    credential_jwt,
    status_list_jwt,
    verification_url,
    verify_credential_jwt,
)
from app.quiz.data_integrity import with_proof
from app.quiz.draw import DEFAULT_COUNT, MAX_COUNT, draw_attempt, public_question, question_from_id, shown_id, stored_id
from app.quiz.generators import GENERATORS, UnknownQuestion
from app.quiz.grading import (
    MAX_ANSWER_LENGTH,
    AnswerError,
    Feedback,
    answer_text,
    feedback_on,
    grade,
    passed,
    right_answer,
    score,
)
from app.quiz.messages import Message, fill
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
from app.quiz.signing import (
    Signed,
    certificate_payload,
    certificate_signer,
    jwk,
    jwks,
    key_id,
    load_or_create_dev_key,
    new_seed_text,
    private_key_from_text,
    public_key_from_text,
    utc_text,
    verify_certificate,
)
from app.quiz.status_list import LIST_BITS, lists_for

__all__ = [
    "BANK_DIR",
    "DEFAULT_COUNT",
    "EXAMPLE_ID",
    "GENERATORS",
    "LIST_BITS",
    "MAX_ANSWER_LENGTH",
    "MAX_COUNT",
    "QUESTION_TYPES",
    "AnswerError",
    "Bank",
    "BankError",
    "BitPattern",
    "Choice",
    "ChoiceQuestion",
    "Feedback",
    "InvalidCertificateId",
    "Message",
    "MultipleSelect",
    "Numeric",
    "Question",
    "Signed",
    "SingleChoice",
    "Topic",
    "UnknownQuestion",
    "Wording",
    "answer_text",
    "certificate_payload",
    "certificate_signer",
    "credential",
    "credential_jwt",
    "draw_attempt",
    "feedback_on",
    "fill",
    "grade",
    "is_well_formed",
    "jwk",
    "jwks",
    "key_id",
    "lists_for",
    "load_bank",
    "load_or_create_dev_key",
    "new_certificate_id",
    "new_seed_text",
    "normalise_certificate_id",
    "passed",
    "private_key_from_text",
    "public_key_from_text",
    "public_question",
    "question_from_id",
    "right_answer",
    "score",
    "shown_id",
    "status_list_jwt",
    "stored_id",
    "utc_text",
    "verification_url",
    "verify_certificate",
    "verify_credential_jwt",
    "with_proof",
]
