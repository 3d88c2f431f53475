"""The JSON of the quiz and certificate APIs and of our JSON Web Keys, field by field, for /openapi.json."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.services.quiz_attempts import TOKEN_HEADER

UTC_TEXT = "ISO 8601 in UTC to the second, e.g. 2026-01-31T12:00:00Z"
QuestionType = Literal["single", "multiple", "numeric", "bits"]  # app.quiz.QUESTION_TYPES (tests hold them equal)


class PublicQuestion(BaseModel):
    """One question of an attempt as its learner sees it: no answer, no explanation."""

    id: str = Field(description="the question's id in this attempt, to send back with its answer")
    type: QuestionType = Field(description="single or multiple (choose by index), numeric or bits (type it)")
    prompt: str = Field(description="the question")
    choices: list[str] | None = Field(None, description="the choices, in order; absent for typed answers")


class NewAttemptAnswer(BaseModel):
    """A new attempt: its questions, and the token that owns it."""

    attempt_id: str = Field(description="the attempt's id, in the URLs of its answers and finish")
    attempt_token: str = Field(description=f"send it back in the {TOKEN_HEADER} header: it owns the attempt")
    pass_mark: float = Field(description="the fraction of right answers that passes, e.g. 0.8")
    questions: list[PublicQuestion] = Field(description="the attempt's questions, in order")


class VerdictAnswer(BaseModel):
    """The verdict on one answer, which is now locked."""

    correct: bool = Field(description="whether the answer was right")
    correct_answer: str = Field(description="the right answer, as text")
    explanation: str = Field(description="why, in paragraphs split by a blank line")


class FinishedAttemptAnswer(BaseModel):
    """A finished attempt's result."""

    score: int = Field(description="right answers")
    total: int = Field(description="questions in the attempt")
    passed: bool = Field(description="whether score reached the pass mark")
    certificate_id: str | None = Field(description="the certificate of a pass; null unless passed")


class CertificateAnswer(BaseModel):
    """A certificate as the site holds it, and whether its stored signature checks."""

    id: str = Field(description="the certificate's ID: 16 symbols and a check symbol")
    name: str = Field(description="the name printed on it")
    quiz: str = Field(description="the quiz it was earned in")
    score: int = Field(description="right answers")
    total: int = Field(description="questions in the attempt")
    issued_at: str = Field(description=f"when it was issued, {UTC_TEXT}")
    status: Literal["valid", "revoked"] = Field(description="valid, or revoked by the site")
    signature_valid: bool = Field(description="whether its stored signature checks against a key of the site")
    revoked_at: str | None = Field(description=f"when it was revoked, {UTC_TEXT}; null unless revoked")
    revoked_reason: str | None = Field(description="why it was revoked; null unless revoked (or no reason given)")


class PublicKeyAnswer(BaseModel):
    """One Ed25519 public key of the site as a JSON Web Key (RFC 8037)."""

    crv: Literal["Ed25519"] = Field(description="the curve")
    x: str = Field(description="the 32 bytes of the public key, base64url")
    kty: Literal["OKP"] = Field(description="the key type: octet key pair")
    kid: str = Field(description="the key's id: the URL that answers with this JWK")
    alg: Literal["EdDSA"] = Field(description="the signature algorithm")
    use: Literal["sig"] = Field(description="what the key is for: signatures")


class KeySetAnswer(BaseModel):
    """The site's public keys as a JSON Web Key Set (RFC 7517): the current one first."""

    keys: list[PublicKeyAnswer] = Field(description="every key a certificate or credential of the site may be "
                                                   "signed with")
