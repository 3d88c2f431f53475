"""The Open Badges 3.0 VC-JWT: verifies with the JWKS alone, and with nothing else."""

from __future__ import annotations

import base64
import json
import string
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from app.quiz.credential import InvalidCredential, credential, credential_jwt, verify_credential_jwt
from app.quiz.signing import jwks, key_id

BASE_URL = "https://lab.example"
BASE64URL = string.ascii_letters + string.digits + "-_"


@dataclass(frozen=True)
class _Certificate:
    id: str = "ABCD-EFGH-JKMN-PQRS-T"
    name: str = "Émilie du Châtelet"
    quiz: str = "Precision Lab quiz"
    score: int = 11
    total: int = 12
    issued_at: datetime = datetime(2026, 1, 31, 12, 0, tzinfo=UTC)


KEY = Ed25519PrivateKey.generate()
JWKS = jwks([KEY.public_key()], BASE_URL)
TOKEN = credential_jwt(_Certificate(), KEY, BASE_URL)


def _segment(index: int) -> dict[str, object]:
    part = TOKEN.split(".")[index]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def test_the_credential_verifies_with_the_jwks() -> None:
    claims = verify_credential_jwt(TOKEN, JWKS)
    assert claims["iss"] == f"{BASE_URL}/"
    assert claims["jti"] == claims["id"] == f"{BASE_URL}/verify/ABCD-EFGH-JKMN-PQRS-T"
    assert claims["nbf"] == claims["iat"] == int(_Certificate.issued_at.timestamp())


def test_the_header_names_the_algorithm_and_key() -> None:
    kid = f"{BASE_URL}/.well-known/jwks/{key_id(KEY.public_key())}.json"  # a URL that dereferences to the key
    assert _segment(0) == {"alg": "EdDSA", "kid": kid, "typ": "JWT"}


def test_the_subject_has_an_id_and_sub_carries_it() -> None:
    subject = credential(_Certificate(), BASE_URL)["credentialSubject"]
    assert subject["id"].startswith("urn:uuid:") and _segment(1)["sub"] == subject["id"]
    assert subject["id"] == credential(_Certificate(), BASE_URL)["credentialSubject"]["id"]  # the same every time
    assert subject["id"] != credential(_Certificate(id="WXYZ-EFGH-JKMN-PQRS-T"), BASE_URL)["credentialSubject"]["id"]


def test_the_payload_is_an_open_badges_3_credential() -> None:
    body = credential(_Certificate(), BASE_URL)
    assert {k: v for k, v in _segment(1).items() if k not in ("iss", "jti", "sub", "nbf", "iat")} == body
    assert body["@context"][0] == "https://www.w3.org/ns/credentials/v2"
    assert body["type"] == ["VerifiableCredential", "OpenBadgeCredential"]
    assert body["issuer"]["name"] == "Precision Lab" and body["validFrom"] == "2026-01-31T12:00:00Z"
    subject = body["credentialSubject"]
    assert subject["identifier"][0]["identityHash"] == "Émilie du Châtelet"
    assert set(subject["achievement"]) >= {"id", "type", "name", "description", "criteria"}


def _verifies(token: str) -> bool:
    try:
        verify_credential_jwt(token, JWKS)
    except InvalidCredential:
        return False
    return True


def test_changing_any_one_byte_fails() -> None:
    """Every position of header, payload, signature and the dots between them."""
    verified = [
        position
        for position, symbol in enumerate(TOKEN)
        if _verifies(TOKEN[:position] + ("A" if symbol != "A" else "B") + TOKEN[position + 1 :])
    ]
    assert verified == []


@pytest.mark.parametrize("segment", range(3))
def test_every_other_last_symbol_of_a_segment_fails(segment: int) -> None:
    """The last base64url symbol carries spare bits; a lenient decoder would accept some changes there."""
    parts = TOKEN.split(".")
    for symbol in BASE64URL.replace(parts[segment][-1], ""):
        changed = [*parts]
        changed[segment] = parts[segment][:-1] + symbol
        assert not _verifies(".".join(changed)), symbol


def test_a_key_not_in_the_jwks_fails() -> None:
    with pytest.raises(InvalidCredential):
        verify_credential_jwt(TOKEN, jwks([Ed25519PrivateKey.generate().public_key()], BASE_URL))
    with pytest.raises(InvalidCredential):
        verify_credential_jwt(TOKEN, {"keys": []})


def test_another_key_claiming_our_kid_fails() -> None:
    forged = credential_jwt(_Certificate(name="Mallory"), Ed25519PrivateKey.generate(), BASE_URL)
    header, payload, signature = forged.split(".")
    ours = TOKEN.split(".")[0]
    with pytest.raises(InvalidCredential):
        verify_credential_jwt(f"{ours}.{payload}.{signature}", JWKS)


def test_an_unsigned_token_fails() -> None:
    def encoded(value: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    unsigned = f"{encoded({'alg': 'none', 'typ': 'JWT'})}.{TOKEN.split('.')[1]}."
    with pytest.raises(InvalidCredential):
        verify_credential_jwt(unsigned, JWKS)


@pytest.mark.parametrize("token", ["", "a.b", "a.b.c", "...", "not a token"])
def test_garbage_fails_cleanly(token: str) -> None:
    with pytest.raises(InvalidCredential):
        verify_credential_jwt(token, JWKS)
