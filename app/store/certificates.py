"""Certificates: look one up, list them, revoke one, and check a stored one's signature."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.quiz import LIST_BITS, certificate_payload, key_id, lists_for, verify_certificate
from app.refusal import NotFound
from app.store.models import Certificate


class UnknownCertificate(NotFound):
    """No certificate has this id."""


def get_certificate(session: Session, certificate_id: str) -> Certificate | None:
    """The certificate with this canonical id (see app.quiz.certificate_id), or None."""
    return session.get(Certificate, certificate_id)


def list_certificates(session: Session, status: str | None = None) -> list[Certificate]:
    """Every certificate, or those with one status ('valid' or 'revoked'), newest first."""
    query = select(Certificate).order_by(Certificate.issued_at.desc(), Certificate.id)
    if status is not None:
        query = query.where(Certificate.status == status)
    return list(session.scalars(query))


def revoke_certificate(session: Session, certificate_id: str, reason: str) -> Certificate:
    """Mark a certificate revoked with a reason; a revoked one keeps the reason and date it was first given."""
    if not reason.strip():
        raise ValueError("A revocation needs a reason.")
    certificate = get_certificate(session, certificate_id)
    if certificate is None:
        raise UnknownCertificate(certificate_id)
    if certificate.status != "revoked":
        certificate.status = "revoked"
        certificate.revoked_reason = reason.strip()
        certificate.revoked_at = datetime.now(UTC)
        session.commit()
    return certificate


def signature_valid(certificate: Certificate, public_keys: Iterable[Ed25519PublicKey]) -> bool:
    """Whether the stored fields still carry the signature made when the certificate was issued."""
    signer = next((key for key in public_keys if key_id(key) == certificate.key_id), None)
    return signer is not None and verify_certificate(signer, certificate_payload(certificate), certificate.signature)


def status_lists(session: Session) -> int:
    """How many revocation lists there are: every list a certificate's bit is in, or may be drawn from."""
    highest = session.scalar(select(func.max(Certificate.status_index)))
    issued = session.scalar(select(func.count()).select_from(Certificate)) or 0
    return max(lists_for(issued), 1 + (highest // LIST_BITS if highest is not None else 0))


def revoked_bits(session: Session, list_number: int) -> list[int]:
    """The bits of one revocation list that are set: those of its revoked certificates."""
    first = list_number * LIST_BITS
    in_list = Certificate.status_index.between(first, first + LIST_BITS - 1)
    indexes = session.scalars(select(Certificate.status_index).where(Certificate.status == "revoked", in_list))
    return [index - first for index in indexes]
