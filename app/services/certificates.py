"""Certificates for the web layer: find one by a typed ID, the issuable one, revocation lists' bits.

A malformed ID (its check symbol is wrong) is refused before any database lookup, with the same sentence as a
well-formed ID that no certificate has.
"""

from __future__ import annotations

import re

from sqlalchemy.orm import Session

from app.quiz import EXAMPLE_ID, InvalidCertificateId, normalise_certificate_id
from app.refusal import NotFound, Refusal
from app.store.certificates import get_certificate, revoked_bits, signature_valid, status_lists
from app.store.models import Certificate

__all__ = ["Certificate", "NoSuchCertificate", "NoSuchList", "Revoked", "find_certificate", "found", "issuable",
           "published_list", "revoked_bits", "signature_valid"]

LONGEST_ID = 64  # more than any spelling of an ID, with spaces and hyphens
_LIST_NUMBER = re.compile(r"0|[1-9][0-9]{0,8}")  # as a list's URL spells it, and never a huge number


class NoSuchCertificate(NotFound):
    def __init__(self) -> None:
        super().__init__(
            "No certificate has this ID. Check it against the certificate: an ID has 16 symbols and a check "
            f"symbol, as in {EXAMPLE_ID} (case, hyphens, and O for 0 or I and L for 1 do not matter).")


class Revoked(Refusal):
    status = 410

    def __init__(self) -> None:
        super().__init__("This certificate was revoked, so no credential is issued for it.")


class NoSuchList(NotFound):
    def __init__(self, lists: int) -> None:
        super().__init__(f"The site publishes revocation lists 0 to {lists - 1}; a credential's credentialStatus "
                         "names the one that holds its bit.")


def find_certificate(session: Session, text: str) -> Certificate | None:
    """The certificate a typed ID names; None for an unknown or a malformed one (no lookup for the latter)."""
    if len(text) > LONGEST_ID:
        return None
    try:
        certificate_id = normalise_certificate_id(text)
    except InvalidCertificateId:
        return None
    return get_certificate(session, certificate_id)


def found(session: Session, text: str) -> Certificate:
    """The certificate a typed ID names; NoSuchCertificate otherwise."""
    certificate = find_certificate(session, text)
    if certificate is None:
        raise NoSuchCertificate()
    return certificate


def issuable(session: Session, text: str) -> Certificate:
    """The certificate a typed ID names, if a credential may be issued for it: not revoked (Revoked, a 410)."""
    certificate = found(session, text)
    if certificate.status == "revoked":
        raise Revoked()
    return certificate


def published_list(session: Session, text: str) -> int:
    """The number of a revocation list the site publishes, as its URL spells it; NoSuchList otherwise."""
    lists = status_lists(session)
    if not _LIST_NUMBER.fullmatch(text) or int(text) >= lists:
        raise NoSuchList(lists)
    return int(text)
