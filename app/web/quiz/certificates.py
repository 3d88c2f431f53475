"""Certificates: the printable page, verification (page and API), the Open Badges credential and our JWKS.

Every lookup by ID is rate limited. A malformed ID (its check symbol is wrong) is refused before any database
lookup, with the same 404 and sentence as a well-formed ID that no certificate has.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

import segno
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from markupsafe import Markup

from app.deps import DbDep, SettingsDep, SigningKeyDep, VerificationKeysDep, rate_limited
from app.quiz import (
    EXAMPLE_ID,
    credential,
    credential_jwt,
    jwk,
    jwks,
    key_id,
    status_list_jwt,
    utc_text,
    verification_url,
    with_proof,
)
from app.services.certificates import (
    LONGEST_ID,
    Certificate,
    find_certificate,
    found,
    issuable,
    published_list,
    revoked_bits,
    signature_valid,
)
from app.settings import Settings
from app.web.platform.catalogs import N_, gettext
from app.web.platform.rate_limiting import count_request
from app.web.platform.rendering import render, templates
from app.web.platform.schemas import refused
from app.web.quiz.localised import credential_wording, quiz_name
from app.web.quiz.schemas import CertificateAnswer, KeySetAnswer, PublicKeyAnswer

router = APIRouter()
templates.env.globals["certificate_example"] = EXAMPLE_ID

_VERIFY = rate_limited("verify")
CertificateId = Annotated[str, Path(min_length=1, description=f"a certificate's ID, such as {EXAMPLE_ID}; case, "
                                                              "hyphens and look-alike symbols do not matter")]
_TOO_MANY_LOOKUPS = refused("Too many lookups from this address; retry after Retry-After seconds")
# NoSuchCertificate's sentence (app/services/certificates.py), to translate on the verify page
NO_SUCH_CERTIFICATE = N_("No certificate has this ID. Check it against the certificate: an ID has 16 symbols and a "
                         "check symbol, as in %(example)s (case, hyphens, and O for 0 or I and L for 1 do not "
                         "matter).")


def certificate_json(certificate: Certificate, signature_checks: bool) -> dict[str, Any]:
    revoked_at = certificate.revoked_at
    return {
        "id": certificate.id, "name": certificate.name, "quiz": certificate.quiz, "score": certificate.score,
        "total": certificate.total, "issued_at": utc_text(certificate.issued_at), "status": certificate.status,
        "signature_valid": signature_checks, "revoked_at": utc_text(revoked_at) if revoked_at else None,
        "revoked_reason": certificate.revoked_reason,
    }


def _facts(certificate: Certificate, keys: list[Ed25519PublicKey]) -> dict[str, Any]:
    """What the certificate and verify pages show besides the stored fields (the dates through |date)."""
    return {"certificate": certificate, "quiz_name": quiz_name(certificate.quiz),
            "percent": round(100 * certificate.score / certificate.total),
            "signature_valid": signature_valid(certificate, keys)}


def _page_context(certificate: Certificate, settings: Settings, keys: list[Ed25519PublicKey]) -> dict[str, Any]:
    url = verification_url(settings.public_base_url, certificate.id)
    qr = segno.make(url, error="m").svg_inline(
        scale=1, border=4, dark="#000", light="#fff", omitsize=True, svgclass="qr-code", lineclass=None,
        title=gettext("QR code of %(url)s") % {"url": url},
    )
    return _facts(certificate, keys) | {"verification_url": url, "qr_code": Markup(qr)}


@router.get("/certificates/{certificate_id}", include_in_schema=False, dependencies=[_VERIFY])
def certificate_page(
    certificate_id: CertificateId, request: Request, session: DbDep, settings: SettingsDep, keys: VerificationKeysDep
) -> Response:
    certificate = found(session, certificate_id)
    if certificate.id != certificate_id:
        return RedirectResponse(f"/certificates/{certificate.id}", status_code=308)
    return render(request, "certificate.html", _page_context(certificate, settings, keys))


_CREDENTIAL_ANSWERS: dict[int | str, dict[str, Any]] = {
    404: refused("No certificate has this ID"), 410: refused("The certificate was revoked"), 429: _TOO_MANY_LOOKUPS}
_JWT: dict[str, Any] = {"application/jwt": {}}  # a compact JWS, signed EdDSA: not JSON, so no schema of its own


@router.get(
    "/certificates/{certificate_id}/credential.jwt", tags=["certificates"], dependencies=[_VERIFY],
    summary="The certificate as an Open Badges 3.0 credential, a VC-JWT signed EdDSA (application/jwt)",
    response_class=Response, responses={200: {"content": _JWT}, **_CREDENTIAL_ANSWERS},
)
def credential_as_jwt(
    certificate_id: CertificateId, session: DbDep, settings: SettingsDep, key: SigningKeyDep
) -> Response:
    certificate = issuable(session, certificate_id)
    token = credential_jwt(certificate, key, settings.public_base_url, certificate.status_index,
                           credential_wording(certificate.attempt.language))
    return Response(token, media_type="application/jwt")


@router.get(
    "/certificates/{certificate_id}/credential.json", tags=["certificates"], dependencies=[_VERIFY],
    summary="The same credential with an embedded Data Integrity proof, cryptosuite eddsa-rdfc-2022 "
            "(application/vc)",
    response_class=Response, responses={200: {"content": {"application/vc": {}}}, **_CREDENTIAL_ANSWERS},
)
def credential_with_proof(
    certificate_id: CertificateId, session: DbDep, settings: SettingsDep, key: SigningKeyDep
) -> Response:
    certificate = issuable(session, certificate_id)
    wording = credential_wording(certificate.attempt.language)
    document = with_proof(credential(certificate, settings.public_base_url, certificate.status_index, wording), key,
                          certificate.issued_at)
    return JSONResponse(document, media_type="application/vc")


@router.get(
    "/credentials/status/{list_number}", tags=["certificates"],
    summary="One revocation list: a W3C Bitstring Status List credential, a VC-JWT signed EdDSA; a credential's "
            "credentialStatus names its list and bit (1 = revoked)",
    response_class=Response, responses={200: {"content": _JWT}, 404: refused("The site has no such list")},
)
def status_list(
    list_number: Annotated[str, Path(min_length=1, description="the list's number, from 0")],
    session: DbDep, settings: SettingsDep, key: SigningKeyDep,
) -> Response:
    number = published_list(session, list_number)
    token = status_list_jwt(settings.public_base_url, number, revoked_bits(session, number), key,
                            datetime.now(UTC))
    # Short-lived, so that a revocation reaches verifiers within minutes; the list itself is valid for a day.
    return Response(token, media_type="application/jwt", headers={"Cache-Control": "public, max-age=300"})


@router.get("/.well-known/jwks.json", tags=["certificates"], response_model=KeySetAnswer,
            summary="The public key(s) that sign certificates and credentials, as a JSON Web Key Set")
def jwks_json(keys: VerificationKeysDep, settings: SettingsDep) -> JSONResponse:
    return JSONResponse(jwks(keys, settings.public_base_url), headers={"Cache-Control": "public, max-age=300"})


@router.get("/.well-known/jwks/{thumbprint}.json", tags=["certificates"],
            summary="One public key, as the JWK a credential's `kid` names", response_model=PublicKeyAnswer,
            responses={404: refused("No key of this site has this RFC 7638 thumbprint")})
def jwk_json(
    thumbprint: Annotated[str, Path(min_length=1, description="the key's RFC 7638 thumbprint")],
    keys: VerificationKeysDep, settings: SettingsDep,
) -> JSONResponse:
    found = next((key for key in keys if key_id(key) == thumbprint), None)
    if found is None:
        raise HTTPException(404, "No signing key of this site has that thumbprint; /.well-known/jwks.json lists them.")
    return JSONResponse(jwk(found, settings.public_base_url), headers={"Cache-Control": "public, max-age=300"})


@router.get(
    "/api/certificates/{certificate_id}", tags=["certificates"], dependencies=[_VERIFY],
    summary="Verify a certificate: its fields, status (valid or revoked) and whether its signature checks",
    response_model=CertificateAnswer,
    responses={404: refused("No certificate has this ID (malformed IDs get the same answer)"), 429: _TOO_MANY_LOOKUPS},
)
def certificate_api(certificate_id: CertificateId, session: DbDep, keys: VerificationKeysDep) -> dict[str, Any]:
    certificate = found(session, certificate_id)
    return certificate_json(certificate, signature_valid(certificate, keys))


def _verify_page(
    request: Request, typed: str, certificate: Certificate | None, keys: list[Ed25519PublicKey]
) -> HTMLResponse:
    error = gettext(NO_SUCH_CERTIFICATE) % {"example": EXAMPLE_ID}
    context = _facts(certificate, keys) if certificate else {"certificate": None, "error": error}
    context["typed"] = typed[:LONGEST_ID]
    return render(request, "verify.html", context, fragment="result", status_code=404 if certificate is None else 200)


@router.get("/verify", include_in_schema=False)
def verify_form(
    request: Request, session: DbDep, keys: VerificationKeysDep, typed: Annotated[str | None, Query(alias="id")] = None
) -> Response:
    if typed is None:
        return render(request, "verify.html", {"typed": "", "certificate": None})
    count_request(request, "verify")  # only a lookup counts, not the empty form
    certificate = find_certificate(session, typed)
    if certificate is None:
        return _verify_page(request, typed, None, keys)
    return RedirectResponse(f"/verify/{certificate.id}", status_code=303)


@router.get("/verify/{certificate_id}", include_in_schema=False, dependencies=[_VERIFY])
def verify_page(certificate_id: CertificateId, request: Request, session: DbDep, keys: VerificationKeysDep) -> Response:
    certificate = find_certificate(session, certificate_id)
    if certificate is not None and certificate.id != certificate_id:
        return RedirectResponse(f"/verify/{certificate.id}", status_code=308)
    return _verify_page(request, certificate_id, certificate, keys)
