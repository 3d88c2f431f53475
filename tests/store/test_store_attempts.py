"""Attempts: bound to their owner's token, one locked answer per question, finished once."""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from collections.abc import Mapping

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from app.quiz.certificate_id import normalise_certificate_id
from app.quiz.signing import Signed, certificate_signer
from app.store.attempts import (
    AlreadyAnswered,
    AttemptFinished,
    QuestionNotDrawn,
    check_name,
    create_attempt,
    finish_attempt,
    get_attempt,
    record_answer,
)
from app.store.database import open_session
from app.store.models import Answer, Attempt, Certificate

QUESTIONS = ["fp16-range", "bf16-bits", "gen-e4m3-max-1"]
TOKEN = "browser-token-of-the-student"


def _attempt(session: Session) -> Attempt:
    return create_attempt(session, seed=2**63 - 1, question_ids=QUESTIONS, owner_token=TOKEN)


def _finish(session: Session, attempt: Attempt, key: Ed25519PrivateKey, *, passed: bool, name: str = "Ada") -> Attempt:
    score = 3 if passed else 1
    issue = certificate_signer(key)
    return finish_attempt(session, attempt, name=name, quiz="Quiz", result=lambda answers: (score, 3, passed),
                          issue=issue)


def _count(session: Session, model: type[Certificate] | type[Answer]) -> int:
    return session.scalar(select(func.count()).select_from(model)) or 0


def test_an_attempt_reads_back_as_created(session: Session, engine: Engine) -> None:
    attempt = _attempt(session)
    with open_session(engine) as other:
        stored = get_attempt(other, attempt.id, TOKEN)
        assert stored is not None
        assert (stored.seed, stored.question_ids) == (2**63 - 1, QUESTIONS)
        assert stored.created_at.tzinfo is not None and stored.finished_at is None
        assert stored.certificate_id is None


def test_only_a_hash_of_the_owner_token_is_stored(session: Session) -> None:
    attempt = _attempt(session)
    assert attempt.owner_hash == hashlib.sha256(TOKEN.encode()).hexdigest()
    assert len(attempt.id) >= 22


def test_another_token_and_an_unknown_id_get_the_same_none(session: Session) -> None:
    attempt = _attempt(session)
    assert get_attempt(session, attempt.id, "someone-else") is None
    assert get_attempt(session, "no-such-attempt", TOKEN) is None
    assert get_attempt(session, attempt.id, TOKEN) is attempt


def test_an_answer_is_recorded(session: Session) -> None:
    attempt = _attempt(session)
    answer = record_answer(session, attempt, "fp16-range", "B", correct=True)
    assert (answer.question_id, answer.answer, answer.correct) == ("fp16-range", "B", True)
    assert [row.question_id for row in attempt.answers] == ["fp16-range"]


def test_a_second_answer_is_refused_and_the_first_kept(session: Session) -> None:
    attempt = _attempt(session)
    record_answer(session, attempt, "fp16-range", "B", correct=True)
    with pytest.raises(AlreadyAnswered):
        record_answer(session, attempt, "fp16-range", "C", correct=False)
    assert [(row.answer, row.correct) for row in session.scalars(select(Answer))] == [("B", True)]


def test_the_database_refuses_a_racing_second_answer(session: Session, engine: Engine) -> None:
    """Two requests that both loaded the attempt before either answered: the unique constraint decides."""
    attempt = _attempt(session)
    with open_session(engine) as other:
        same_attempt = get_attempt(other, attempt.id, TOKEN)
        assert same_attempt is not None
        record_answer(session, attempt, "bf16-bits", "0x3f80", correct=True)
        with pytest.raises(AlreadyAnswered):
            record_answer(other, same_attempt, "bf16-bits", "0x0000", correct=False)
    assert _count(session, Answer) == 1


def test_a_question_not_drawn_is_refused(session: Session) -> None:
    attempt = _attempt(session)
    with pytest.raises(QuestionNotDrawn):
        record_answer(session, attempt, "not-in-this-attempt", "A", correct=True)


def test_a_finished_attempt_takes_no_answers(session: Session, signing_key: Ed25519PrivateKey) -> None:
    attempt = _attempt(session)
    _finish(session, attempt, signing_key, passed=False)
    with pytest.raises(AttemptFinished):
        record_answer(session, attempt, "fp16-range", "B", correct=True)


def test_a_passed_attempt_gets_one_certificate(session: Session, signing_key: Ed25519PrivateKey) -> None:
    attempt = _finish(session, _attempt(session), signing_key, passed=True)
    assert (attempt.score, attempt.total, attempt.passed) == (3, 3, True)
    assert attempt.finished_at is not None and attempt.certificate is not None
    certificate = attempt.certificate
    assert normalise_certificate_id(certificate.id) == certificate.id == attempt.certificate_id
    assert (certificate.name, certificate.quiz, certificate.score, certificate.total) == ("Ada", "Quiz", 3, 3)
    assert certificate.status == "valid" and certificate.issued_at.microsecond == 0


def test_finishing_twice_gives_the_same_result_and_one_certificate(
    session: Session, engine: Engine, signing_key: Ed25519PrivateKey
) -> None:
    attempt = _attempt(session)
    first = _finish(session, attempt, signing_key, passed=True)
    result = (first.finished_at, first.score, first.passed, first.certificate_id)
    with open_session(engine) as other:
        again = get_attempt(other, attempt.id, TOKEN)
        assert again is not None
        second = _finish(other, again, signing_key, passed=False, name="Mallory")
        assert (second.finished_at, second.score, second.passed, second.certificate_id) == result
    assert _count(session, Certificate) == 1


def test_racing_finishes_issue_one_certificate(engine: Engine, signing_key: Ed25519PrivateKey) -> None:
    with open_session(engine) as session:
        attempt_id = _attempt(session).id
    start = threading.Barrier(4)
    results: list[str | None] = []

    def finish() -> None:
        with open_session(engine) as session:
            attempt = get_attempt(session, attempt_id, TOKEN)
            assert attempt is not None
            start.wait()
            results.append(_finish(session, attempt, signing_key, passed=True).certificate_id)

    threads = [threading.Thread(target=finish) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with open_session(engine) as session:
        assert _count(session, Certificate) == 1
        assert results == [session.scalars(select(Certificate.id)).one()] * 4


def test_no_certificate_without_a_pass(session: Session, signing_key: Ed25519PrivateKey) -> None:
    attempt = _finish(session, _attempt(session), signing_key, passed=False)
    assert attempt.passed is False and attempt.certificate_id is None
    assert _finish(session, attempt, signing_key, passed=True).certificate_id is None
    assert _count(session, Certificate) == 0


def test_a_failed_signing_leaves_the_attempt_unfinished(session: Session, signing_key: Ed25519PrivateKey) -> None:
    attempt = _attempt(session)

    def broken_issue(payload: Mapping[str, object]) -> Signed:
        raise RuntimeError("the signing key is unavailable")

    with pytest.raises(RuntimeError):
        finish_attempt(session, attempt, name="Ada", quiz="Quiz", result=lambda answers: (3, 3, True),
                       issue=broken_issue)
    session.refresh(attempt)
    assert attempt.finished_at is None and _count(session, Certificate) == 0
    assert _finish(session, attempt, signing_key, passed=True).certificate_id is not None


@pytest.mark.parametrize("name", ["", "   ", "x" * 201, "Ada\x00", "Ada\nLovelace"])
def test_a_pass_needs_a_printable_name(session: Session, signing_key: Ed25519PrivateKey, name: str) -> None:
    attempt = _attempt(session)
    with pytest.raises(ValueError, match="name on a certificate"):
        _finish(session, attempt, signing_key, passed=True, name=name)
    session.refresh(attempt)
    assert attempt.finished_at is None


def test_the_longest_name_is_stored_whole(session: Session, signing_key: Ed25519PrivateKey) -> None:
    attempt = _finish(session, _attempt(session), signing_key, passed=True, name="é" * 200)
    assert attempt.certificate is not None and attempt.certificate.name == "é" * 200


def _counting(answers) -> tuple[int, int, bool]:  # type: ignore[no-untyped-def]
    right = sum(answer.correct for answer in answers)
    return right, len(QUESTIONS), right == len(QUESTIONS)


@pytest.mark.parametrize("round_", range(12))
def test_a_finish_and_racing_answers_exclude_each_other(engine: Engine, signing_key, round_: int) -> None:
    """Every answer is either refused (the attempt had finished) or stored before the finish and counted in
    its score: never stored after it, on either backend (SQLite let 1 or 2 in 8 such races through)."""
    with open_session(engine) as session:
        attempt_id = _attempt(session).id
    start = threading.Barrier(len(QUESTIONS) + 1)
    refused: list[str] = []

    def answer(question_id: str) -> None:
        with open_session(engine) as session:
            attempt = get_attempt(session, attempt_id, TOKEN)
            assert attempt is not None
            start.wait()
            try:
                record_answer(session, attempt, question_id, "A", correct=True)
            except AttemptFinished:
                refused.append(question_id)

    def finish() -> None:
        with open_session(engine) as session:
            attempt = get_attempt(session, attempt_id, TOKEN)
            assert attempt is not None
            start.wait()
            finish_attempt(session, attempt, name="Ada", quiz="Quiz", result=_counting,
                           issue=certificate_signer(signing_key))

    threads = [threading.Thread(target=answer, args=(q,)) for q in QUESTIONS] + [threading.Thread(target=finish)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with open_session(engine) as session:
        attempt = session.get(Attempt, attempt_id)
        assert attempt is not None and attempt.finished_at is not None
        stored = session.scalars(select(Answer).where(Answer.attempt_id == attempt_id)).all()
        assert len(stored) + len(refused) == len(QUESTIONS)
        assert attempt.score == len(stored)  # every stored answer counted: none came after the finish
        assert all(a.answered_at <= attempt.finished_at for a in stored)


@pytest.mark.parametrize("name", [
    "Adéwálé Ọ̀ṣọ́",  # Yoruba, tone marks and dots below
    "Ἀριστοτέλης", "İpek Yılmaz", "محمد بن موسى", "李小龍", "अनुष्का शर्मा", "Nguyễn Thị Ngọc",
    "Ada \u2067محمد\u2069 Lovelace",  # a right-to-left part in a balanced isolate
    "Ada\u200f",  # a right-to-left mark sets a direction and hides nothing
])
def test_names_in_every_script_are_printed(name: str) -> None:
    assert check_name(name) == unicodedata.normalize("NFC", name)


def test_a_name_is_stored_in_nfc() -> None:
    decomposed = "Ade\u0301wa\u0301le\u0301"  # é as e and a combining acute
    assert check_name(decomposed) == "Adéwálé"


@pytest.mark.parametrize(("name", "phrase"), [
    ("\u202eecalevoL adA", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    ("Ada \u202aLovelace", "U+202A"),
    ("Ada \u2067Lovelace", "never closes"),
    ("Ada\u2069 Lovelace", "never opened"),
    ("Ada\u200bLovelace", "U+200B (ZERO WIDTH SPACE)"),
    ("Ada\u200dLovelace", "U+200D"),
    ("\ufeffAda", "U+FEFF"),
    ("Z" + "\u0301\u0300\u0302\u0303\u0304\u0306", "combining marks"),
    ("Ada\tLovelace", "control characters"),
])
def test_names_that_would_print_as_something_else_are_refused(name: str, phrase: str) -> None:
    with pytest.raises(ValueError, match=re.escape(phrase)):
        check_name(name)
