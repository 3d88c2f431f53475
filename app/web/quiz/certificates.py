"""Certificates: the printable page, verification (page and API), the Open Badges credential and our JWKS.

Every lookup by ID is rate limited. A malformed ID (its check symbol is wrong) is refused before any database
lookup, with the same 404 and sentence as a well-formed ID that no certificate has.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

import segno
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from markupsafe import Markup
from sqlalchemy.orm import Session

from app.quiz import EXAMPLE_ID, InvalidCertificateId, normalise_certificate_id
from app.quiz.credential import credential, credential_jwt, status_list_jwt, verification_url
from app.quiz.data_integrity import with_proof
from app.quiz.signing import jwk, jwks, key_id, utc_text
from app.settings import Settings
from app.store.certificates import get_certificate, revoked_bits, signature_valid, status_lists
from app.store.models import Certificate
from app.web.shared.deps import DbDep, SettingsDep, SigningKeyDep, VerificationKeysDep
from app.web.shared.rate_limiting import rate_limited
from app.web.shared.rendering import render, templates

router = APIRouter()
templates.env.globals["certificate_example"] = EXAMPLE_ID

NOT_FOUND = ("No certificate has this ID. Check it against the certificate: an ID has 16 symbols and a check "
             f"symbol, as in {EXAMPLE_ID} (case, hyphens, and O for 0 or I and L for 1 do not matter).")
_LONGEST_ID = 64  # more than any spelling of an ID, with spaces and hyphens
_VERIFY = rate_limited("verify")


def find_certificate(session: Session, text: str) -> Certificate | None:
    """The certificate a typed ID names; None for an unknown or a malformed one (no lookup for the latter)."""
    if len(text) > _LONGEST_ID:
        return None
    try:
        certificate_id = normalise_certificate_id(text)
    except InvalidCertificateId:
        return None
    return get_certificate(session, certificate_id)


def _found(session: Session, text: str) -> Certificate:
    certificate = find_certificate(session, text)
    if certificate is None:
        raise HTTPException(404, NOT_FOUND)
    return certificate


def certificate_json(certificate: Certificate, signature_checks: bool) -> dict[str, Any]:
    revoked_at = certificate.revoked_at
    return {
        "id": certificate.id, "name": certificate.name, "quiz": certificate.quiz, "score": certificate.score,
        "total": certificate.total, "issued_at": utc_text(certificate.issued_at), "status": certificate.status,
        "signature_valid": signature_checks, "revoked_at": utc_text(revoked_at) if revoked_at else None,
        "revoked_reason": certificate.revoked_reason,
    }


def day(moment: datetime) -> str:
    """A date as people write it: 7 March 2026."""
    return f"{moment.day} {moment:%B %Y}"


def _facts(certificate: Certificate, keys: list[Ed25519PublicKey]) -> dict[str, Any]:
    """What the certificate and verify pages show besides the stored fields."""
    revoked_at = certificate.revoked_at
    return {"certificate": certificate, "issued_on": day(certificate.issued_at),
            "revoked_on": day(revoked_at) if revoked_at else None,
            "percent": round(100 * certificate.score / certificate.total),
            "signature_valid": signature_valid(certificate, keys)}


def _page_context(certificate: Certificate, settings: Settings, keys: list[Ed25519PublicKey]) -> dict[str, Any]:
    url = verification_url(settings.public_base_url, certificate.id)
    qr = segno.make(url, error="m").svg_inline(
        scale=1, border=4, dark="#000", light="#fff", omitsize=True, svgclass="qr-code", lineclass=None,
        title=f"QR code of {url}",
    )
    return _facts(certificate, keys) | {"verification_url": url, "qr_code": Markup(qr)}


@router.get("/certificates/{certificate_id}", include_in_schema=False, dependencies=[_VERIFY])
def certificate_page(
    certificate_id: str, request: Request, session: DbDep, settings: SettingsDep, keys: VerificationKeysDep
) -> Response:
    certificate = _found(session, certificate_id)
    if certificate.id != certificate_id:
        return RedirectResponse(f"/certificates/{certificate.id}", status_code=308)
    return render(request, "certificate.html", _page_context(certificate, settings, keys))


_LIST_NUMBER = re.compile(r"0|[1-9][0-9]{0,8}")  # as a list's URL spells it, and never a huge number
_CREDENTIAL_ANSWERS: dict[int | str, dict[str, Any]] = {
    404: {"description": "No certificate has this ID"}, 410: {"description": "The certificate was revoked"}}
REVOKED = "This certificate was revoked, so no credential is issued for it."


def _issuable(session: Session, certificate_id: str) -> Certificate:
    certificate = _found(session, certificate_id)
    if certificate.status == "revoked":
        raise HTTPException(410, REVOKED)
    return certificate


@router.get(
    "/certificates/{certificate_id}/credential.jwt", tags=["certificates"], dependencies=[_VERIFY],
    summary="The certificate as an Open Badges 3.0 credential, a VC-JWT signed EdDSA (application/jwt)",
    response_class=Response, responses={200: {"content": {"application/jwt": {}}}, **_CREDENTIAL_ANSWERS},
)
def credential_as_jwt(certificate_id: str, session: DbDep, settings: SettingsDep, key: SigningKeyDep) -> Response:
    certificate = _issuable(session, certificate_id)
    token = credential_jwt(certificate, key, settings.public_base_url, certificate.status_index)
    return Response(token, media_type="application/jwt")


@router.get(
    "/certificates/{certificate_id}/credential.json", tags=["certificates"], dependencies=[_VERIFY],
    summary="The same credential with an embedded Data Integrity proof, cryptosuite eddsa-rdfc-2022 "
            "(application/vc)",
    response_class=Response, responses={200: {"content": {"application/vc": {}}}, **_CREDENTIAL_ANSWERS},
)
def credential_with_proof(certificate_id: str, session: DbDep, settings: SettingsDep, key: SigningKeyDep) -> Response:
    certificate = _issuable(session, certificate_id)
    document = with_proof(credential(certificate, settings.public_base_url, certificate.status_index), key,
                          certificate.issued_at)
    return JSONResponse(document, media_type="application/vc")


@router.get(
    "/credentials/status/{list_number}", tags=["certificates"],
    summary="One revocation list: a W3C Bitstring Status List credential, a VC-JWT signed EdDSA; a credential's "
            "credentialStatus names its list and bit (1 = revoked)",
    response_class=Response,
    responses={200: {"content": {"application/jwt": {}}}, 404: {"description": "The site has no such list"}},
)
def status_list(list_number: str, session: DbDep, settings: SettingsDep, key: SigningKeyDep) -> Response:
    lists = status_lists(session)
    if not _LIST_NUMBER.fullmatch(list_number) or int(list_number) >= lists:
        raise HTTPException(404, f"The site publishes revocation lists 0 to {lists - 1}; a credential's "
                                 "credentialStatus names the one that holds its bit.")
    number = int(list_number)
    token = status_list_jwt(settings.public_base_url, number, revoked_bits(session, number), key,
                            datetime.now(UTC))
    # Short-lived, so that a revocation reaches verifiers within minutes; the list itself is valid for a day.
    return Response(token, media_type="application/jwt", headers={"Cache-Control": "public, max-age=300"})


@router.get("/.well-known/jwks.json", tags=["certificates"],
            summary="The public key(s) that sign certificates and credentials, as a JSON Web Key Set")
def jwks_json(keys: VerificationKeysDep, settings: SettingsDep) -> JSONResponse:
    return JSONResponse(jwks(keys, settings.public_base_url), headers={"Cache-Control": "public, max-age=300"})


@router.get("/.well-known/jwks/{thumbprint}.json", tags=["certificates"],
            summary="One public key, as the JWK a credential's `kid` names", responses={404: {"description":
            "No key of this site has this RFC 7638 thumbprint"}})
def jwk_json(thumbprint: str, keys: VerificationKeysDep, settings: SettingsDep) -> JSONResponse:
    found = next((key for key in keys if key_id(key) == thumbprint), None)
    if found is None:
        raise HTTPException(404, "No signing key of this site has that thumbprint; /.well-known/jwks.json lists them.")
    return JSONResponse(jwk(found, settings.public_base_url), headers={"Cache-Control": "public, max-age=300"})


@router.get(
    "/api/certificates/{certificate_id}", tags=["certificates"], dependencies=[_VERIFY],
    summary="Verify a certificate: its fields, status (valid or revoked) and whether its signature checks",
    response_description="id, name, quiz, score, total, issued_at, status, signature_valid, revoked_at, "
                         "revoked_reason",
    responses={404: {"description": "No certificate has this ID (malformed IDs get the same answer)"},
               429: {"description": "Too many lookups from this address; retry after Retry-After seconds"}},
)
def certificate_api(certificate_id: str, session: DbDep, keys: VerificationKeysDep) -> dict[str, Any]:
    certificate = _found(session, certificate_id)
    return certificate_json(certificate, signature_valid(certificate, keys))


def _verify_page(
    request: Request, typed: str, certificate: Certificate | None, keys: list[Ed25519PublicKey]
) -> HTMLResponse:
    context = _facts(certificate, keys) if certificate else {"certificate": None, "error": NOT_FOUND}
    context["typed"] = typed[:_LONGEST_ID]
    return render(request, "verify.html", context, fragment="result", status_code=404 if certificate is None else 200)


@router.get("/verify", include_in_schema=False)
def verify_form(
    request: Request, session: DbDep, keys: VerificationKeysDep, typed: Annotated[str | None, Query(alias="id")] = None
) -> Response:
    if typed is None:
        return render(request, "verify.html", {"typed": "", "certificate": None})
    request.app.state.rate_limits.check(request, "verify")  # only a lookup counts, not the empty form
    certificate = find_certificate(session, typed)
    if certificate is None:
        return _verify_page(request, typed, None, keys)
    return RedirectResponse(f"/verify/{certificate.id}", status_code=303)


@router.get("/verify/{certificate_id}", include_in_schema=False, dependencies=[_VERIFY])
def verify_page(certificate_id: str, request: Request, session: DbDep, keys: VerificationKeysDep) -> Response:
    certificate = find_certificate(session, certificate_id)
    if certificate is not None and certificate.id != certificate_id:
        return RedirectResponse(f"/verify/{certificate.id}", status_code=308)
    return _verify_page(request, certificate_id, certificate, keys)
