"""The site's credentials as a third-party verifier checks them: PyJWT (not joserfc, which signs them) with the
key that the token's `kid` URL answers with, every Open Badges 3.0 VC-JWT rule of 8.2.4.1, and 1EdTech's JSON
Schema of the AchievementCredential (tests/reference/, with its source)."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema_rs
import jwt
import pytest
from openbadgeslib.ob3.did import resolve_did
from openbadgeslib.ob3.ldp import OB3LdpVerifier
from openbadgeslib.ob3.verifier import OB3VerificationError, OB3Verifier

from app.store.certificates import get_certificate, revoke_certificate
from app.store.database import open_session
from tests.helpers.html import Elements
from tests.helpers.quiz import public_key_pem, take_attempt

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "reference" /
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


# -- the other two things a verifier needs: a proof it can check without EdDSA JWS, and revocation it can learn ---
# Checked with openbadgeslib, an Open Badges 3.0 verifier written apart from this site: its eddsa-rdfc-2022
# verifier (PyLD canonicalisation, its own pinned contexts) and its W3C Bitstring Status List check.

def _download_from(client):  # type: ignore[no-untyped-def]
    """What a verifier fetches a statusListCredential URL with: here the site itself, through the test client."""
    base = client.app.state.settings.public_base_url

    def download(url: str) -> bytes:
        assert url.startswith(f"{base}/credentials/status/")
        response = client.get(url.removeprefix(base))
        assert response.status_code == 200
        return response.content
    return download


def _with_proof(client, certificate_id: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    response = client.get(f"/certificates/{certificate_id}/credential.json")
    assert response.status_code == 200 and response.headers["content-type"] == "application/vc"
    return response.json()


def test_an_independent_verifier_checks_the_data_integrity_proof_with_the_published_key(client):
    certificate_id, token = _issued(client)
    document = _with_proof(client, certificate_id)
    [proof] = document["proof"]
    assert proof["type"] == "DataIntegrityProof" and proof["cryptosuite"] == "eddsa-rdfc-2022"
    verified = OB3LdpVerifier(pubkey_pem=public_key_pem(client)).verify(document)
    assert verified.issuer is not None and verified.issuer.id == f"{client.app.state.settings.public_base_url}/"
    # The proof's did:key resolves, offline, to the very key the JWKS publishes.
    did = proof["verificationMethod"].split("#")[0]
    assert resolve_did(did) == public_key_pem(client)
    # The same credential as the VC-JWT, and as valid by 1EdTech's schema.
    claims = jwt.decode(token, options={"verify_signature": False})
    assert {name: value for name, value in document.items() if name != "proof"} == {
        name: value for name, value in claims.items() if name not in ("iss", "jti", "sub", "nbf", "iat")}
    assert not [error.message for error in jsonschema_rs.validator_for(SCHEMA).iter_errors(document)]


@pytest.mark.parametrize("change", [
    lambda d: d["credentialSubject"]["identifier"][0].update(identityHash="Mallory"),
    lambda d: d.update(description=d["description"] + " With honours."),
    lambda d: d["credentialStatus"].update(statusListIndex="7"),
    lambda d: d["proof"][0].update(created="2020-01-01T00:00:00Z"),
], ids=["name", "description", "status bit", "proof created"])
def test_a_changed_credential_fails_its_data_integrity_proof(client, change):
    certificate_id, _ = _issued(client)
    document = _with_proof(client, certificate_id)
    change(document)
    with pytest.raises(OB3VerificationError):
        OB3LdpVerifier(pubkey_pem=public_key_pem(client)).verify(document)


def test_an_offline_copy_learns_of_its_revocation_from_the_signed_status_list(client):
    certificate_id, token = _issued(client)
    _, other_token = _issued(client)
    document = _with_proof(client, certificate_id)
    verifier = OB3Verifier(pubkey_pem=public_key_pem(client))
    download = _download_from(client)
    # verify_status_list: the list's own signature is checked, and its issuer must be the credential's.
    for checked in (token, other_token):
        verifier.verify(checked, check_status=True, verify_status_list=True, download=download)
    OB3LdpVerifier(pubkey_pem=public_key_pem(client)).verify(document, check_status=True, download=download)

    with open_session(client.app.state.engine) as session:
        revoke_certificate(session, certificate_id, "Issued by mistake.")
    with pytest.raises(OB3VerificationError, match="revocation"):
        verifier.verify(token, check_status=True, verify_status_list=True, download=download)
    with pytest.raises(OB3VerificationError, match="revocation"):
        OB3LdpVerifier(pubkey_pem=public_key_pem(client)).verify(document, check_status=True, download=download)
    # Only its own bit is set: the other certificate still verifies.
    verifier.verify(other_token, check_status=True, verify_status_list=True, download=download)


def test_certificates_hold_distinct_bits_and_the_list_sets_exactly_the_revoked_ones(client):
    issued = [_issued(client)[0] for _ in range(3)]
    with open_session(client.app.state.engine) as session:
        revoke_certificate(session, issued[1], "Issued by mistake.")
    entries = [_with_proof(client, certificate_id)["credentialStatus"] for certificate_id in (issued[0], issued[2])]
    with open_session(client.app.state.engine) as session:
        indexes = [get_certificate(session, certificate_id).status_index for certificate_id in issued]  # type: ignore[union-attr]
    assert len(set(indexes)) == 3
    response = client.get(urlsplit(entries[0]["statusListCredential"]).path)
    assert response.headers["content-type"] == "application/jwt" and "max-age" in response.headers["cache-control"]
    subject = jwt.decode(response.text, options={"verify_signature": False})["credentialSubject"]
    encoded = subject["encodedList"]
    # Decoded as the specification says, apart from the site's code: multibase u, base64url, GZIP, bit 0 first.
    bits = gzip.decompress(base64.urlsafe_b64decode(encoded[1:] + "=" * (-len(encoded[1:]) % 4)))
    assert encoded[0] == "u" and len(bits) * 8 == 131_072
    set_bits = [position for position in range(len(bits) * 8) if bits[position // 8] & (0x80 >> position % 8)]
    assert set_bits == [indexes[1] % 131_072]
    for entry, index in zip(entries, (indexes[0], indexes[2]), strict=True):
        assert entry["statusListIndex"] == str(index % 131_072) and entry["statusPurpose"] == "revocation"


@pytest.mark.parametrize("number", ["1", "-1", "01", "x", "99999999999999999999", "0.0"])
def test_a_list_the_site_does_not_publish_is_a_404_with_a_sentence(client, number):
    response = client.get(f"/credentials/status/{number}")
    assert response.status_code == 404 and "revocation lists 0 to 0" in response.json()["detail"]


def test_a_revoked_certificate_has_no_credential_with_a_proof_either(client):
    certificate_id, _ = _issued(client)
    with open_session(client.app.state.engine) as session:
        revoke_certificate(session, certificate_id, "Issued by mistake.")
    response = client.get(f"/certificates/{certificate_id}/credential.json")
    assert response.status_code == 410 and "revoked" in response.json()["detail"]


def test_the_certificate_page_links_both_forms_of_the_credential(client):
    certificate_id, token = _issued(client)
    page = Elements(client.get(f"/certificates/{certificate_id}").text)
    [as_jwt], [with_proof] = page.having("data-credential"), page.having("data-credential-proof")
    assert client.get(as_jwt["href"]).text == token
    assert client.get(with_proof["href"]).json()["proof"][0]["cryptosuite"] == "eddsa-rdfc-2022"
