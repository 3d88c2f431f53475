"""Certificates through TestClient: the printable page, verification (page and API), forgiving and forged IDs,
revocation, tampering, the Open Badges credential against our JWKS, rate limits and hostile IDs."""

from __future__ import annotations

import string
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr, ValidationError

from app.cli import main as cli
from app.main import create_app
from app.quiz import new_certificate_id, normalise_certificate_id
from app.quiz.certificate_id import CHECK_SYMBOLS
from app.quiz.credential import InvalidCredential, verify_credential_jwt
from app.quiz.signing import jwks, new_seed_text, private_key_from_text
from app.services import certificates
from app.settings import Settings
from app.store.certificates import get_certificate, revoke_certificate
from app.store.database import open_session
from app.web.platform.rendering import static
from tests.helpers.html import HX, Elements
from tests.helpers.quiz import take_attempt
from tests.helpers.refusals import is_sentence

BASE64URL = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"


@pytest.fixture
def certificate_id(client) -> str:
    return str(take_attempt(client, name="Ada Lovelace")["certificate_id"])


def forgivingly_typed(certificate_id: str) -> str:
    """The ID as a person might type it: lower case, no hyphens, O for 0 and l for 1."""
    return certificate_id.replace("-", "").lower().replace("0", "o").replace("1", "l")


def with_wrong_check_symbol(certificate_id: str) -> str:
    wrong = next(symbol for symbol in CHECK_SYMBOLS if symbol != certificate_id[-1])
    return certificate_id[:-1] + wrong


def test_the_certificate_page_shows_every_fact_and_a_qr_code_of_its_verification_url(client, certificate_id):
    response = client.get(f"/certificates/{certificate_id}")
    page = Elements(response.text)
    assert response.status_code == 200
    assert page.text_of("data-name") == "Ada Lovelace"
    assert page.text_of("data-quiz") == "Number formats and mixed precision"
    assert page.text_of("data-score") == "12 of 12"
    assert page.text_of("data-certificate-id") == certificate_id
    assert page.text_of("data-certificate-status") == "Valid"
    url = f"http://127.0.0.1:8000/verify/{certificate_id}"
    assert page.text_of("data-verification-url") == url
    assert [a for tag, a in page.tags if tag == "svg" and "qr-code" in a.get("class", "")]
    assert f"QR code of {url}" in response.text
    assert "<script>" not in response.text and " style=" not in response.text and "data:image" not in response.text
    assert f'href="{static("css/quiz.css")}"' in response.text


def test_verification_forgives_case_hyphens_and_look_alike_letters(client, certificate_id):
    typed = forgivingly_typed(certificate_id)
    redirect = client.get("/verify", params={"id": typed}, follow_redirects=False)
    assert redirect.status_code == 303 and redirect.headers["location"] == f"/verify/{certificate_id}"
    page = Elements(client.get(redirect.headers["location"]).text)
    assert page.having("data-status")[0]["data-status"] == "valid"
    assert page.having("data-signature")[0]["data-signature"] == "checks"
    assert page.text_of("data-name") == "Ada Lovelace" and page.text_of("data-score") == "12 of 12 (100%)"
    assert client.get(f"/verify/{typed}", follow_redirects=False).headers["location"] == f"/verify/{certificate_id}"
    assert client.get(f"/certificates/{typed}", follow_redirects=False).status_code == 308
    assert client.get(f"/api/certificates/{typed}").json()["id"] == certificate_id


def test_the_verify_form_has_a_labelled_id_field_and_htmx_gets_the_result_alone(client, certificate_id):
    page = Elements(client.get("/verify").text)
    assert [a["name"] for _, a in page.tags if a.get("id") == "certificate-id"] == ["id"]
    fragment = client.get(f"/verify/{certificate_id}", headers=HX)
    assert fragment.status_code == 200 and "<html" not in fragment.text and "data-verification" in fragment.text


def test_unknown_and_malformed_ids_get_the_same_answer(client, certificate_id):
    unknown, malformed = new_certificate_id(), with_wrong_check_symbol(certificate_id)
    for path in ("/api/certificates/{}", "/verify/{}", "/certificates/{}", "/verify?id={}"):
        answers = [client.get(path.format(text)) for text in (unknown, malformed)]
        assert [response.status_code for response in answers] == [404, 404], path
        if path.startswith("/api"):
            details = [response.json()["detail"] for response in answers]
        else:
            details = [Elements(response.text).text_of("data-error") for response in answers]
        assert details[0] == details[1] and is_sentence(details[0])


def test_a_wrong_check_symbol_is_caught_before_any_database_lookup(client, certificate_id, monkeypatch):
    looked_up: list[str] = []

    def spy(session, text):
        looked_up.append(text)
        return get_certificate(session, text)

    monkeypatch.setattr(certificates, "get_certificate", spy)
    for path in ("/api/certificates/{}", "/verify/{}", "/certificates/{}", "/verify?id={}"):
        client.get(path.format(with_wrong_check_symbol(certificate_id)))
    assert looked_up == []
    client.get(f"/api/certificates/{new_certificate_id()}")
    assert len(looked_up) == 1


@pytest.mark.slow  # 10,200 look-ups, 200 of them through the API
def test_ten_thousand_random_well_formed_ids_never_verify(make_settings):
    with TestClient(create_app(make_settings(rate_limit_verify="1000/minute"))) as client:
        real = take_attempt(client)["certificate_id"]
        for _ in range(200):
            forged = new_certificate_id()
            assert forged != real and client.get(f"/api/certificates/{forged}").status_code == 404
        with open_session(client.app.state.engine) as session:
            for _ in range(10_000):
                forged = new_certificate_id()
                assert normalise_certificate_id(forged) == forged
                assert forged == real or certificates.find_certificate(session, forged) is None


def test_the_credential_verifies_with_the_served_jwks_and_one_changed_byte_breaks_it(client, certificate_id):
    response = client.get(f"/certificates/{certificate_id}/credential.jwt")
    assert response.status_code == 200 and response.headers["content-type"] == "application/jwt"
    token, keys = response.text, client.get("/.well-known/jwks.json").json()
    assert [key["kty"] for key in keys["keys"]] == ["OKP"] and "d" not in keys["keys"][0]
    claims = verify_credential_jwt(token, keys)
    assert claims["jti"].endswith(f"/verify/{certificate_id}")
    assert claims["credentialSubject"]["identifier"][0]["identityHash"] == "Ada Lovelace"
    for position, symbol in enumerate(token):
        if symbol == ".":
            continue
        # Flipping the top bit of the base64url digit always changes a decoded byte.
        changed = token[:position] + BASE64URL[BASE64URL.index(symbol) ^ 32] + token[position + 1:]
        with pytest.raises(InvalidCredential):
            verify_credential_jwt(changed, keys)


def test_a_revoked_certificate_says_so_everywhere(client, certificate_id):
    with open_session(client.app.state.engine) as session:
        revoke_certificate(session, certificate_id, "Issued by mistake.")
    page = Elements(client.get(f"/certificates/{certificate_id}").text)
    assert page.having("data-certificate")[0]["data-status"] == "revoked"
    assert "Issued by mistake." in page.text_of("data-revoked")
    assert page.text_of("data-certificate-status") == "Revoked"
    verified = Elements(client.get(f"/verify/{certificate_id}").text)
    assert verified.having("data-status")[0]["data-status"] == "revoked"
    assert verified.text_of("data-verdict").startswith("Revoked on")
    body = client.get(f"/api/certificates/{certificate_id}").json()
    assert body["status"] == "revoked" and body["revoked_reason"] == "Issued by mistake."
    assert body["signature_valid"] is True
    refused = client.get(f"/certificates/{certificate_id}/credential.jwt")
    assert refused.status_code == 410 and is_sentence(refused.json()["detail"])


def test_the_cli_revokes_a_certificate_that_the_site_then_shows_revoked(client, certificate_id, capsys):
    url = client.app.state.settings.database_url
    assert cli(["certificates", "revoke", forgivingly_typed(certificate_id), "--reason", "Cheating.",
                "--database-url", url]) == 0
    assert client.get(f"/api/certificates/{certificate_id}").json()["status"] == "revoked"


def test_an_altered_record_no_longer_checks(client, certificate_id):
    with open_session(client.app.state.engine) as session:
        stored = get_certificate(session, certificate_id)
        assert stored is not None
        stored.score, stored.name = 12, "Mallory"
        session.commit()
    assert client.get(f"/api/certificates/{certificate_id}").json()["signature_valid"] is False
    page = Elements(client.get(f"/verify/{certificate_id}").text)
    assert page.having("data-signature")[0]["data-signature"] == "fails"
    assert "Do not trust" in page.text_of("data-verdict")


def test_html_in_the_name_is_shown_as_text(client):
    name = '<script>alert(1)</script><img src=x onerror=alert(1)>"'
    certificate_id = take_attempt(client, name=name)["certificate_id"]
    for path in (f"/certificates/{certificate_id}", f"/verify/{certificate_id}"):
        html = client.get(path).text
        assert "<script>alert" not in html and "<img src=x" not in html and "&lt;script&gt;" in html
    assert client.get(f"/api/certificates/{certificate_id}").json()["name"] == name


HOSTILE_IDS = ["x" * 5000, "<script>alert(1)</script>", "%00", "ABCD", " ", "0000-0000-0000-0000-0", "ＡＢＣＤ",
               "1' OR '1'='1", "../../etc/passwd", "%F0%9F%98%80" * 20]


@pytest.mark.parametrize("text", HOSTILE_IDS)
@pytest.mark.parametrize("path", ["/api/certificates/{}", "/verify/{}", "/certificates/{}",
                                  "/certificates/{}/credential.jwt", "/verify?id={}"])
def test_hostile_ids_get_a_404_with_a_sentence_and_no_markup(client, path, text):
    response = client.get(path.format(quote(text, safe="")))
    assert response.status_code == 404, response.text[:200]
    if response.headers["content-type"].startswith("application/json"):
        assert is_sentence(response.json()["detail"])
    else:
        assert is_sentence(Elements(response.text).text_of("data-error"))
        assert "<script>alert(1)" not in response.text


def test_certificate_lookups_are_rate_limited_per_client(make_settings):
    with TestClient(create_app(make_settings(rate_limit_verify="3/minute"))) as client:
        assert client.get("/verify").status_code == 200  # the empty form costs nothing
        paths = ["/api/certificates/{}", "/verify/{}", "/certificates/{}", "/verify?id={}",
                 "/certificates/{}/credential.jwt"]
        statuses = [client.get(path.format(new_certificate_id())).status_code for path in paths]
        assert statuses == [404, 404, 404, 429, 429]
        refused = client.get(f"/api/certificates/{new_certificate_id()}")
        assert refused.status_code == 429 and 1 <= int(refused.headers["retry-after"]) <= 60
        assert is_sentence(refused.json()["detail"])
        page = client.get(f"/verify/{new_certificate_id()}")
        assert page.status_code == 429 and "try again" in Elements(page.text).text_of("data-error")


def test_the_jwks_is_public_and_cacheable(client):
    response = client.get("/.well-known/jwks.json")
    key = response.json()["keys"][0]
    assert key["crv"] == "Ed25519" and key["alg"] == "EdDSA" and key["use"] == "sig" and key["kid"]
    assert "max-age" in response.headers["cache-control"]


def test_after_a_key_rotation_certificates_verify_when_the_old_key_is_listed_as_previous(database_url):
    """Without the old public key its certificates no longer check; with it they do, and the JWKS publishes both."""
    old_seed, new_seed = new_seed_text(), new_seed_text()
    old_key = jwks([private_key_from_text(old_seed).public_key()], Settings().public_base_url)["keys"][0]

    def app_with(seed: str, previous: str = "") -> TestClient:
        return TestClient(create_app(Settings(environment="test", database_url=database_url,
                                              signing_key=SecretStr(seed), previous_public_keys=previous)))

    with app_with(old_seed) as client:
        issued_before = str(take_attempt(client, name="Ada Lovelace")["certificate_id"])
    with app_with(new_seed) as client:
        assert client.get(f"/api/certificates/{issued_before}").json()["signature_valid"] is False
        assert [key["kid"] for key in client.get("/.well-known/jwks.json").json()["keys"]] != [old_key["kid"]]
    with app_with(new_seed, previous=f" {old_key['x']} ,") as client:
        assert client.get(f"/api/certificates/{issued_before}").json()["signature_valid"] is True
        page = Elements(client.get(f"/verify/{issued_before}").text)
        assert page.having("data-signature")[0]["data-signature"] == "checks"
        published = client.get("/.well-known/jwks.json").json()["keys"]
        assert len(published) == 2 and published[1] == old_key
        issued_after = str(take_attempt(client, name="Grace Hopper")["certificate_id"])
        assert client.get(f"/api/certificates/{issued_after}").json()["signature_valid"] is True
        with open_session(client.app.state.engine) as session:
            stored = get_certificate(session, issued_after)
            assert stored is not None, "new certificates use the new key"
            assert published[0]["kid"].endswith(f"/{stored.key_id}.json")


BAD_PUBLIC_KEYS = ["not a key", "AAAA", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"]


@pytest.mark.parametrize("previous", BAD_PUBLIC_KEYS)
def test_a_previous_public_key_that_cannot_be_read_is_refused_with_a_sentence(previous):
    with pytest.raises(ValidationError) as refused:
        Settings(environment="test", previous_public_keys=previous)
    message = str(refused.value)
    assert "PRECISION_LAB_PREVIOUS_PUBLIC_KEYS, key 1:" in message
