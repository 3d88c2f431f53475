"""Quiz attempts: start one, record answers, finish it (issuing the certificate of a pass in the same transaction).

Every write commits its own transaction. An attempt belongs to the browser token that started it: `get_attempt`
answers None both for an unknown id and for someone else's attempt, so ids cannot be probed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import CursorResult, exists, func, insert, literal, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.quiz import LIST_BITS, Signed, certificate_payload, lists_for, new_certificate_id
from app.refusal import Conflict, Refusal
from app.store.models import NAME_MAX_LENGTH, Answer, Attempt, Certificate, UTCDateTime

Issue = Callable[[Mapping[str, object]], Signed]
"""Signs a certificate payload: `app.quiz.signing.certificate_signer(key)` makes one."""


class AlreadyAnswered(Conflict):
    """The question of this attempt has its answer already; answers are locked once given."""

    def __init__(self) -> None:
        super().__init__("This question has its answer already: each question takes one answer, which is then locked.")


class AttemptFinished(Conflict):
    """The attempt is finished, so it takes no more answers."""

    def __init__(self) -> None:
        super().__init__("This attempt is finished, so it takes no more answers; start a new one to try again.")


class QuestionNotDrawn(Refusal):
    """The question is not one of those drawn for this attempt."""

    def __init__(self) -> None:
        super().__init__("question_id is not one of this attempt's questions.")


class UnprintableName(Refusal):
    """A name that a certificate cannot print faithfully; the sentence says why."""


def owner_hash(owner_token: str) -> str:
    """What is stored of the browser token that owns an attempt: its sha256 in hex."""
    return hashlib.sha256(owner_token.encode("utf-8")).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


def create_attempt(session: Session, seed: int, question_ids: Sequence[str], owner_token: str,
                   language: str = "en") -> Attempt:
    """Store a new attempt with an unguessable url-safe id, owned by owner_token, taken in `language`."""
    attempt = Attempt(
        id=secrets.token_urlsafe(16),
        seed=seed,
        question_ids=list(question_ids),
        owner_hash=owner_hash(owner_token),
        created_at=_now(),
        language=language,
    )
    session.add(attempt)
    session.commit()
    return attempt


def get_attempt(session: Session, attempt_id: str, owner_token: str) -> Attempt | None:
    """The attempt if it exists and owner_token started it; None otherwise, the same answer for both."""
    attempt = session.get(Attempt, attempt_id)
    if attempt is None or not hmac.compare_digest(attempt.owner_hash, owner_hash(owner_token)):
        return None
    return attempt


def record_answer(session: Session, attempt: Attempt, question_id: str, answer: str, correct: bool) -> Answer:
    """Store the one answer to a question; AlreadyAnswered, AttemptFinished or QuestionNotDrawn refuse it.

    The answer is inserted only while the attempt is unfinished, tested in the same statement, so a finish and
    an answer exclude each other on every backend: on SQLite, which runs one writing statement at a time, by
    that statement alone; on PostgreSQL also by the attempt's row lock, taken first, which a finish waits for.
    """
    if question_id not in attempt.question_ids:
        raise QuestionNotDrawn()
    answered_at = _now()
    try:
        session.execute(select(Attempt.id).where(Attempt.id == attempt.id).with_for_update())
        unfinished = exists().where(Attempt.id == attempt.id, Attempt.finished_at.is_(None))
        row = select(literal(attempt.id), literal(question_id), literal(answer), literal(correct),
                     literal(answered_at, UTCDateTime())).where(unfinished)
        # RETURNING says whether the row went in (an INSERT's rowcount is not reliable on every driver)
        inserted = session.scalar(insert(Answer).from_select(_ANSWER_COLUMNS, row).returning(Answer.id))
        if inserted is None:
            session.rollback()
            raise AttemptFinished()
        session.commit()
    except IntegrityError:
        session.rollback()
        raise AlreadyAnswered() from None
    session.expire(attempt, ["answers"])
    return session.get_one(Answer, inserted)


_ANSWER_COLUMNS = ("attempt_id", "question_id", "answer", "correct", "answered_at")
Result = Callable[[Sequence[Answer]], tuple[int, int, bool]]
"""(score, total, passed) of an attempt from its stored answers: the quiz core grades, the store only counts."""


def finish_attempt(session: Session, attempt: Attempt, *, name: str, quiz: str, result: Result,
                   issue: Issue) -> Attempt:
    """Close the attempt with the result of its stored answers and, when passed, issue its signed certificate
    in the same transaction, with a free bit of the revocation lists drawn at random.

    Idempotent: finishing a finished attempt changes nothing and returns it as it was first finished.
    A passed attempt needs a name that check_name accepts (UnprintableName otherwise). The result is of exactly the
    answers stored when the attempt closes: the closing statement requires that their number is still the one
    scored (an answer that got in meanwhile means scoring again), and no answer is stored once it has closed.
    """
    collisions = 0
    while True:
        try:
            session.execute(select(Attempt.id).where(Attempt.id == attempt.id).with_for_update())
            answers = session.scalars(select(Answer).where(Answer.attempt_id == attempt.id)).all()
            score, total, passed = result(answers)
            if passed:
                name = check_name(name)
            finished_at = _now()
            scored = select(func.count()).select_from(Answer).where(Answer.attempt_id == attempt.id)
            # Only the first of two racing finishes matches `finished_at IS NULL`; the other sees it finished.
            closed = session.execute(
                update(Attempt)
                .where(Attempt.id == attempt.id, Attempt.finished_at.is_(None),
                       scored.scalar_subquery() == len(answers))
                .values(finished_at=finished_at, score=score, total=total, passed=passed)
            )
            if cast(CursorResult[Any], closed).rowcount == 1 and passed:
                certificate = _signed_certificate(attempt, name, quiz, score, total, finished_at, issue)
                certificate.status_index = _free_status_index(session)
                session.add(certificate)
            session.commit()
        except IntegrityError:
            # A finish elsewhere took the same free bit between our look and our insert: draw again.
            session.rollback()
            collisions += 1
            if collisions > _MAX_COLLISIONS:
                raise
            continue
        except BaseException:
            session.rollback()
            raise
        session.refresh(attempt)
        if attempt.finished_at is not None:
            return attempt
        # not closed and not finished by another: an answer came in after the scoring, so score again


_MAX_COLLISIONS = 8  # each draw is free with probability ≥ 1/2, and a collision needs a race on it too


def _free_status_index(session: Session) -> int:
    """A random bit of the revocation lists that no certificate holds, among enough lists that at most half of
    their bits are taken."""
    places = lists_for(session.scalar(select(func.count()).select_from(Certificate)) or 0) * LIST_BITS
    while True:
        candidate = secrets.randbelow(places)
        if not session.scalar(select(exists().where(Certificate.status_index == candidate))):
            return candidate


_ISOLATES_OPEN, _ISOLATE_CLOSE = "\u2066\u2067\u2068", "\u2069"  # LRI, RLI, FSI; PDI
_DIRECTION_MARKS = "\u200e\u200f\u061c"  # LRM, RLM, ALM: they set a direction and hide nothing
MAX_COMBINING_RUN = 4  # Yoruba's ẹ́ or Vietnamese's ệ need 1 or 2 after NFC, Devanagari a few; "Zalgo" dozens


def check_name(name: str) -> str:
    """The name as a certificate prints it (NFC), or UnprintableName (a sentence) for one that cannot be printed
    faithfully: control characters, bidi overrides and embeddings, unterminated isolates, invisible format
    characters (zero-width spaces and joiners, BOMs), or a pile of combining marks."""
    name = unicodedata.normalize("NFC", name)
    if not name.strip() or len(name) > NAME_MAX_LENGTH:
        raise UnprintableName(f"The name on a certificate has 1 to {NAME_MAX_LENGTH} characters.")
    if any(unicodedata.category(character) == "Cc" for character in name):
        raise UnprintableName("The name on a certificate cannot hold control characters such as tabs or line breaks.")
    depth, combining = 0, 0
    for character in name:
        if character in _ISOLATES_OPEN:
            depth += 1
        elif character == _ISOLATE_CLOSE:
            depth -= 1
            if depth < 0:
                raise UnprintableName("The name closes a direction isolate (U+2069) that it never opened.")
        elif unicodedata.category(character) == "Cf" and character not in _DIRECTION_MARKS:
            raise UnprintableName(f"The name holds the invisible character U+{ord(character):04X} "
                             f"({unicodedata.name(character, 'a format character')}), which could make it print "
                             "as something else; please leave it out.")
        combining = combining + 1 if unicodedata.category(character).startswith("M") else 0
        if combining > MAX_COMBINING_RUN:
            raise UnprintableName(f"The name piles more than {MAX_COMBINING_RUN} accents or other combining marks on "
                             "one letter.")
    if depth:
        raise UnprintableName("The name opens a direction isolate (U+2066, U+2067 or U+2068) that it never closes "
                         "with U+2069.")
    return name


def _signed_certificate(
    attempt: Attempt, name: str, quiz: str, score: int, total: int, finished_at: datetime, issue: Issue
) -> Certificate:
    certificate = Certificate(
        id=new_certificate_id(),
        attempt_id=attempt.id,
        name=name,
        quiz=quiz,
        score=score,
        total=total,
        issued_at=finished_at.replace(microsecond=0),
        status="valid",
    )
    certificate.signature, certificate.key_id = issue(certificate_payload(certificate))
    return certificate
