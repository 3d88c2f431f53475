"""The site's credentials as a third-party verifier checks them: PyJWT (not joserfc, which signs them) with the
key that the token's `kid` URL answers with, every Open Badges 3.0 VC-JWT rule of 8.2.4.1, and 1EdTech's JSON
Schema of the AchievementCredential (tests/reference/, with its source)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema_rs
import jwt

from tests.web.test_quiz_api import take_attempt

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "reference" /
                     "ob_v3p0_achievementcredential_schema.json").read_text(encoding="utf-8"))


def _issued(client) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    certificate_id = str(take_attempt(client, name="Adéwálé Ọ̀ṣọ́")["certificate_id"])
    response = client.get(f"/certificates/{certificate_id}/credential.jwt")
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/jwt")
    return certificate_id, response.text


def test_pyjwt_verifies_the_credential_with_the_key_its_kid_dereferences_to(client):
    certificate_id, token = _issued(client)
    header = jwt.get_unverified_header(token)
    assert header["alg"] == "EdDSA" and header["typ"] == "JWT"
    kid = urlsplit(header["kid"])
    assert kid.scheme in ("http", "https") and kid.netloc  # a URL, not a bare thumbprint
    answered = client.get(kid.path)
    assert answered.status_code == 200
    key = jwt.PyJWK(answered.json())
    assert answered.json()["kid"] == header["kid"]
    base = client.app.state.settings.public_base_url
    claims = jwt.decode(token, key.key, algorithms=["EdDSA"], issuer=f"{base}/",
                        options={"require": ["iss", "jti", "sub", "nbf"]})
    assert claims["jti"] == claims["id"] == f"{base}/verify/{certificate_id}"
    assert claims["sub"] == claims["credentialSubject"]["id"]  # sub carries the subject's id
    assert claims["nbf"] == claims["iat"]


def test_pyjwt_finds_the_key_in_the_jwks_by_the_same_kid(client):
    _, token = _issued(client)
    keys = jwt.PyJWKSet.from_dict(client.get("/.well-known/jwks.json").json())
    kid = jwt.get_unverified_header(token)["kid"]
    (key,) = [k for k in keys.keys if k.key_id == kid]
    assert jwt.decode(token, key.key, algorithms=["EdDSA"], options={"verify_aud": False})["sub"]


def test_another_key_does_not_verify(client):
    _, token = _issued(client)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        jwt.decode(token, Ed25519PrivateKey.generate().public_key(), algorithms=["EdDSA"])
    except jwt.InvalidSignatureError:
        return
    raise AssertionError("a token verified with a key that did not sign it")


def test_the_credential_is_valid_by_1edtechs_achievement_credential_schema(client):
    _, token = _issued(client)
    claims = jwt.decode(token, options={"verify_signature": False})
    credential = {name: value for name, value in claims.items() if name not in ("iss", "jti", "sub", "nbf", "iat")}
    validator = jsonschema_rs.validator_for(SCHEMA)
    errors = [error.message for error in validator.iter_errors(credential)]
    assert not errors
    broken = {**credential, "credentialSubject": {**credential["credentialSubject"], "type": "Nobody"}}
    assert not validator.is_valid(broken)  # the schema is really checked


def test_an_unknown_key_url_is_a_404_with_a_sentence(client):
    response = client.get("/.well-known/jwks/not-a-thumbprint.json")
    assert response.status_code == 404 and "thumbprint" in response.json()["detail"]
