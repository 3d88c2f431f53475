"""Certificates: read back with a valid signature, tampering detected, listed, revoked."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Engine, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.quiz.signing import certificate_signer
from app.store.attempts import create_attempt, finish_attempt
from app.store.certificates import (
    UnknownCertificate,
    get_certificate,
    list_certificates,
    revoke_certificate,
    signature_valid,
)
from app.store.database import open_session
from app.store.models import Certificate


def _issue(session: Session, key: Ed25519PrivateKey, name: str = "Ada Lovelace") -> Certificate:
    attempt = create_attempt(session, seed=7, question_ids=["q1", "q2"], owner_token="token")
    finish_attempt(
        session, attempt, name=name, quiz="Quiz", result=lambda answers: (2, 2, True), issue=certificate_signer(key)
    )
    assert attempt.certificate is not None
    return attempt.certificate


def test_the_signature_verifies_after_reading_back(
    session: Session, engine: Engine, signing_key: Ed25519PrivateKey
) -> None:
    issued = _issue(session, signing_key, name="Émilie du Châtelet 🧮")
    with open_session(engine) as other:
        stored = get_certificate(other, issued.id)
        assert stored is not None
        assert (stored.name, stored.issued_at) == ("Émilie du Châtelet 🧮", issued.issued_at)
        assert signature_valid(stored, [signing_key.public_key()])


def test_a_tampered_row_fails_verification(session: Session, engine: Engine, signing_key: Ed25519PrivateKey) -> None:
    issued = _issue(session, signing_key)
    with engine.begin() as connection:
        connection.execute(update(Certificate).where(Certificate.id == issued.id).values(name="Mallory"))
    with open_session(engine) as other:
        stored = get_certificate(other, issued.id)
        assert stored is not None and stored.name == "Mallory"
        assert not signature_valid(stored, [signing_key.public_key()])


def test_an_unknown_key_fails_verification(session: Session, signing_key: Ed25519PrivateKey) -> None:
    issued = _issue(session, signing_key)
    assert not signature_valid(issued, [Ed25519PrivateKey.generate().public_key()])
    assert not signature_valid(issued, [])


def test_an_unknown_id_reads_as_none(session: Session) -> None:
    assert get_certificate(session, "0000-0000-0000-0000-0") is None


def test_one_attempt_cannot_hold_two_certificates(session: Session, signing_key: Ed25519PrivateKey) -> None:
    issued = _issue(session, signing_key)
    session.add(
        Certificate(
            id="0000-0000-0000-0000-0",
            attempt_id=issued.attempt_id,
            name="Copy",
            quiz="Quiz",
            score=2,
            total=2,
            issued_at=issued.issued_at,
            status="valid",
            signature=issued.signature,
            key_id=issued.key_id,
        )
    )
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()


def test_revoking_records_status_reason_and_date(
    session: Session, engine: Engine, signing_key: Ed25519PrivateKey
) -> None:
    issued = _issue(session, signing_key)
    revoke_certificate(session, issued.id, "  Issued by mistake. ")
    with open_session(engine) as other:
        stored = get_certificate(other, issued.id)
        assert stored is not None
        assert (stored.status, stored.revoked_reason) == ("revoked", "Issued by mistake.")
        assert stored.revoked_at is not None and stored.revoked_at >= stored.issued_at
        assert signature_valid(stored, [signing_key.public_key()])  # revocation leaves the signed fields alone


def test_revoking_again_keeps_the_first_reason(session: Session, signing_key: Ed25519PrivateKey) -> None:
    issued = _issue(session, signing_key)
    first = revoke_certificate(session, issued.id, "first")
    revoked_at = first.revoked_at
    again = revoke_certificate(session, issued.id, "second")
    assert (again.revoked_reason, again.revoked_at) == ("first", revoked_at)


def test_revoking_needs_a_known_id_and_a_reason(session: Session, signing_key: Ed25519PrivateKey) -> None:
    issued = _issue(session, signing_key)
    with pytest.raises(UnknownCertificate):
        revoke_certificate(session, "0000-0000-0000-0000-0", "reason")
    with pytest.raises(ValueError, match="reason"):
        revoke_certificate(session, issued.id, "   ")


def test_list_is_newest_first_and_filters_by_status(session: Session, signing_key: Ed25519PrivateKey) -> None:
    assert list_certificates(session) == []
    older, newer = _issue(session, signing_key, "Older"), _issue(session, signing_key, "Newer")
    session.execute(
        update(Certificate).where(Certificate.id == older.id).values(issued_at=newer.issued_at.replace(year=2020))
    )
    session.commit()
    assert [certificate.name for certificate in list_certificates(session)] == ["Newer", "Older"]
    revoke_certificate(session, older.id, "test")
    assert [certificate.name for certificate in list_certificates(session, "revoked")] == ["Older"]
    assert [certificate.name for certificate in list_certificates(session, "valid")] == ["Newer"]
