"""A certificate as an Open Badges 3.0 credential, signed as a VC-JWT with the certificate key.

The JWT payload is the credential itself with the registered claims Open Badges 3.0 maps onto it
(iss = issuer id, jti = credential id, sub = credentialSubject id, nbf = validFrom), and its header's `kid` is
the URL of the signing key's JWK (8.2.4.1), so a third party verifies it with that key, or our JWKS, alone.
Its sentences are in the language the attempt was taken in (Wording, with the Achievement's `inLanguage`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwa import EdDSAAlgorithm
from joserfc.jwk import KeySet, OKPKey
from joserfc.jws import JWSRegistry

from app.quiz import status_list
from app.quiz.messages import N_
from app.quiz.signing import ALGORITHM, CertificateFields, key_id, key_url, utc_text

ISSUER_NAME = "Precision Lab"
_CONTEXT = ["https://www.w3.org/ns/credentials/v2", "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"]


DESCRIPTION = N_("A quiz on number formats from FP64 to FP4 and on mixed-precision training.")
CRITERIA = N_("Pass one attempt of the quiz: questions drawn across every topic, graded on the server.")
CREDENTIAL_NAME = N_("%(quiz)s: certificate")
CREDENTIAL_DESCRIPTION = N_("Answered %(score)s of %(total)s questions correctly.")


def _english(message: str) -> str:
    return message


@dataclass(frozen=True)
class Wording:
    """The language of a credential's sentences: its code (BCP 47, the Achievement's `inLanguage`) and what
    turns each English sentence or template above, and the quiz's name, into it (the web layer's catalogs)."""

    language: str = "en"
    translate: Callable[[str], str] = _english


class InvalidCredential(ValueError):
    """The token is not a well-formed credential signed by a key of the given JWKS."""


class _EdDSA(EdDSAAlgorithm):
    # RFC 9864 prefers the name "Ed25519", but Open Badges verifiers expect "EdDSA"; our keys are only Ed25519.
    security_warning = None  # type: ignore[assignment]  # joserfc types it str here, None in its base


class _Registry(JWSRegistry):
    algorithms = {**JWSRegistry.algorithms, ALGORITHM: _EdDSA()}


_REGISTRY = _Registry(algorithms=[ALGORITHM])
_REQUIRED_CLAIMS = jwt.JWTClaimsRegistry(iss={"essential": True}, jti={"essential": True}, sub={"essential": True},
                                         nbf={"essential": True})


def verification_url(base_url: str, certificate_id: str) -> str:
    """The page where anyone checks this certificate: the credential's id."""
    return f"{base_url}/verify/{certificate_id}"


def subject_id(base_url: str, certificate_id: str) -> str:
    """The credential subject's id: a name-based UUID of the certificate, for we store no identity of the person
    beyond the name they chose to print (which the subject's identifier carries)."""
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, verification_url(base_url, certificate_id))}"


def issuer_id(base_url: str) -> str:
    """The site as the issuer of every credential it signs."""
    return f"{base_url}/"


def credential(certificate: CertificateFields, base_url: str, status_index: int | None = None,
               wording: Wording = Wording()) -> dict[str, Any]:  # noqa: B008 (immutable)
    """The Open Badges 3.0 OpenBadgeCredential of a certificate, as JSON, in the wording's language; with the bit
    of the revocation list that its certificate holds (app.quiz.status_list), if it holds one."""
    say = wording.translate
    quiz = say(certificate.quiz)
    achievement = {
        "id": f"{base_url}/quiz",
        "type": ["Achievement"],
        "achievementType": "Certificate",
        "name": quiz,
        "description": say(DESCRIPTION),
        "criteria": {"narrative": say(CRITERIA)},
        "inLanguage": wording.language,
    }
    body = {
        "@context": _CONTEXT,
        "id": verification_url(base_url, certificate.id),
        "type": ["VerifiableCredential", "OpenBadgeCredential"],
        "name": say(CREDENTIAL_NAME) % {"quiz": quiz},
        "description": say(CREDENTIAL_DESCRIPTION) % {"score": certificate.score, "total": certificate.total},
        "issuer": {"id": issuer_id(base_url), "type": ["Profile"], "name": ISSUER_NAME, "url": f"{base_url}/"},
        "validFrom": utc_text(certificate.issued_at),
        "credentialSubject": {
            "id": subject_id(base_url, certificate.id),
            "type": ["AchievementSubject"],
            # The name the student chose to print is all we know of them, so it is their identifier.
            "identifier": [
                {"type": "IdentityObject", "identityType": "name", "hashed": False, "identityHash": certificate.name}
            ],
            "achievement": achievement,
        },
    }
    if status_index is not None:
        body["credentialStatus"] = status_list.entry(base_url, status_index)
    return body


def credential_jwt(certificate: CertificateFields, key: Ed25519PrivateKey, base_url: str,
                   status_index: int | None = None, wording: Wording = Wording()) -> str:  # noqa: B008 (immutable)
    """The certificate's credential as a compact JWS signed EdDSA, its header naming the key by `kid`."""
    body = credential(certificate, base_url, status_index, wording)
    return signed_jwt(body, key, base_url, subject=body["credentialSubject"]["id"], issued=certificate.issued_at)


def status_list_jwt(base_url: str, list_number: int, revoked_bits: Iterable[int], key: Ed25519PrivateKey,
                    now: datetime) -> str:
    """One revocation list as it stands now, a BitstringStatusListCredential signed like the credentials."""
    body = status_list.status_list_credential(base_url, list_number, revoked_bits, issuer_id(base_url), now)
    return signed_jwt(body, key, base_url, subject=body["credentialSubject"]["id"], issued=now,
                      expires=now + status_list.LIST_VALID_FOR)


def signed_jwt(body: dict[str, Any], key: Ed25519PrivateKey, base_url: str, *, subject: str, issued: datetime,
               expires: datetime | None = None) -> str:
    """A credential as a VC-JWT: its JSON with the registered claims mapped onto it (iss, jti, sub, nbf, iat and
    exp for one that expires), signed EdDSA with the header's `kid` the URL of the key's JWK."""
    issuer = body["issuer"]
    claims = {**body, "iss": issuer["id"] if isinstance(issuer, dict) else issuer, "jti": body["id"],
              "sub": subject, "nbf": int(issued.timestamp()), "iat": int(issued.timestamp())}
    if expires is not None:
        claims["exp"] = int(expires.timestamp())
    header = {"alg": ALGORITHM, "kid": key_url(base_url, key_id(key.public_key())), "typ": "JWT"}
    return jwt.encode(header, claims, OKPKey.import_key(key), registry=_REGISTRY)


def verify_credential_jwt(token: str, jwks: Mapping[str, Any]) -> dict[str, Any]:
    """The claims of a credential whose signature checks with a key of jwks; InvalidCredential otherwise."""
    try:
        keys = KeySet.import_key_set(dict(jwks))  # type: ignore[arg-type]
        claims = jwt.decode(token, keys, registry=_REGISTRY).claims
        _REQUIRED_CLAIMS.validate(claims)
    except (JoseError, ValueError, TypeError, KeyError) as error:
        raise InvalidCredential(f"The credential does not verify: {error}") from error
    return claims
