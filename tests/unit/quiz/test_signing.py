"""Ed25519 certificate signatures, key loading, key ids and the JWKS."""

from __future__ import annotations

import base64
import stat
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, generate_private_key
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from pydantic import SecretStr

from app.quiz.signing import (
    canonical_json,
    certificate_payload,
    certificate_signer,
    jwks,
    key_id,
    load_or_create_dev_key,
    new_seed_text,
    private_key_from_text,
    sign_certificate,
    verify_certificate,
)
from app.settings import Settings

# RFC 8037, appendix A.1 and A.3: an Ed25519 key and its RFC 7638 thumbprint.
RFC8037_SEED = base64.urlsafe_b64decode("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A=")
RFC8037_X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
RFC8037_THUMBPRINT = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"


@dataclass(frozen=True)
class _Certificate:
    id: str = "ABCD-EFGH-JKMN-PQRS-T"
    name: str = "Ada Lovelace"
    quiz: str = "Precision Lab quiz"
    score: int = 11
    total: int = 12
    issued_at: datetime = datetime(2026, 1, 31, 12, 0, tzinfo=UTC)


def _pem(key: Ed25519PrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def _public_bytes(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def test_key_id_is_the_rfc_7638_thumbprint() -> None:
    key = Ed25519PrivateKey.from_private_bytes(RFC8037_SEED)
    assert base64.urlsafe_b64encode(_public_bytes(key)).rstrip(b"=").decode() == RFC8037_X
    assert key_id(key.public_key()) == RFC8037_THUMBPRINT


def test_jwks_publishes_the_public_key_only() -> None:
    key = Ed25519PrivateKey.from_private_bytes(RFC8037_SEED)
    assert jwks([key.public_key()], "https://lab.example") == {
        "keys": [
            {"kty": "OKP", "crv": "Ed25519", "x": RFC8037_X, "alg": "EdDSA", "use": "sig",
             "kid": f"https://lab.example/.well-known/jwks/{RFC8037_THUMBPRINT}.json"}
        ]
    }


@pytest.mark.parametrize("form", ["pem", "base64", "base64url-unpadded"])
def test_a_key_reads_from_pem_or_a_base64_seed(form: str) -> None:
    key = Ed25519PrivateKey.generate()
    seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    text = {
        "pem": _pem(key),
        "base64": base64.b64encode(seed).decode(),
        "base64url-unpadded": base64.urlsafe_b64encode(seed).decode().rstrip("="),
    }[form]
    assert _public_bytes(private_key_from_text(f"\n{text}\n")) == _public_bytes(key)


def test_a_new_seed_reads_back() -> None:
    assert len(base64.b64decode(new_seed_text(), validate=True)) == 32
    private_key_from_text(new_seed_text())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("c2hvcnQ=", "32 bytes"),
        ("not base64 at all!", "neither PEM nor base64"),
        ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", "not an unencrypted private key"),
    ],
)
def test_an_unreadable_key_is_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        private_key_from_text(text)


def test_a_pem_key_of_another_kind_is_refused() -> None:
    pem = (
        generate_private_key(SECP256R1())
        .private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        .decode()
    )
    with pytest.raises(ValueError, match="not an Ed25519 key"):
        private_key_from_text(pem)


def test_the_development_key_is_made_once_private_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "var" / "signing-key.pem"
    first = load_or_create_dev_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _public_bytes(load_or_create_dev_key(path)) == _public_bytes(first)
    assert [entry.name for entry in path.parent.iterdir()] == ["signing-key.pem"]


def test_canonical_json_is_sorted_compact_utf8() -> None:
    assert canonical_json({"name": "Émilie", "id": "X", "score": 3}) == '{"id":"X","name":"Émilie","score":3}'.encode()
    assert canonical_json({"b": 1, "a": 2}) == canonical_json({"a": 2, "b": 1})


def test_the_payload_holds_exactly_the_signed_fields_in_utc() -> None:
    paris = timezone(timedelta(hours=1))
    certificate = _Certificate(issued_at=datetime(2026, 1, 31, 13, 0, 0, 999, tzinfo=paris))
    assert certificate_payload(certificate) == {
        "id": "ABCD-EFGH-JKMN-PQRS-T",
        "name": "Ada Lovelace",
        "quiz": "Precision Lab quiz",
        "score": 11,
        "total": 12,
        "issued_at": "2026-01-31T12:00:00Z",
    }


def test_a_signature_verifies_with_its_key_only() -> None:
    key = Ed25519PrivateKey.generate()
    payload = certificate_payload(_Certificate())
    signature = sign_certificate(key, payload)
    assert verify_certificate(key.public_key(), payload, signature)
    assert not verify_certificate(Ed25519PrivateKey.generate().public_key(), payload, signature)


@pytest.mark.parametrize(
    "changed",
    [
        {"id": "ABCD-EFGH-JKMN-PQRS-V"},
        {"name": "Ada Lovelace "},
        {"quiz": "Another quiz"},
        {"score": 12},
        {"total": 11},
        {"issued_at": datetime(2026, 1, 31, 12, 0, 1, tzinfo=UTC)},
    ],
)
def test_changing_any_signed_field_breaks_the_signature(changed: dict[str, object]) -> None:
    key = Ed25519PrivateKey.generate()
    signature = sign_certificate(key, certificate_payload(_Certificate()))
    tampered = certificate_payload(replace(_Certificate(), **changed))  # type: ignore[arg-type]
    assert not verify_certificate(key.public_key(), tampered, signature)


@pytest.mark.parametrize("signature", ["", "not base64!", "AAAA", "é", "A" * 86, "A" * 85 + "B"])
def test_a_malformed_signature_is_false_not_an_error(signature: str) -> None:
    key = Ed25519PrivateKey.generate()
    assert not verify_certificate(key.public_key(), certificate_payload(_Certificate()), signature)


def test_the_signer_names_its_key() -> None:
    key = Ed25519PrivateKey.generate()
    payload = certificate_payload(_Certificate())
    signed = certificate_signer(key)(payload)
    assert signed.key_id == key_id(key.public_key())
    assert verify_certificate(key.public_key(), payload, signed.signature)


@pytest.fixture
def _no_env_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PRECISION_LAB_SIGNING_KEY", raising=False)


@pytest.mark.usefixtures("_no_env_file")
def test_production_needs_a_signing_key() -> None:
    with pytest.raises(ValueError, match="PRECISION_LAB_SIGNING_KEY must be set"):
        Settings(environment="production", signing_key=None)
    Settings(environment="production", signing_key=SecretStr(new_seed_text()))


@pytest.mark.usefixtures("_no_env_file")
def test_a_malformed_signing_key_is_refused_at_start_without_echoing_it() -> None:
    with pytest.raises(ValueError, match="PRECISION_LAB_SIGNING_KEY") as error:
        Settings(signing_key=SecretStr("secret-but-wrong"))
    assert "secret-but-wrong" not in str(error.value)


@pytest.mark.usefixtures("_no_env_file")
def test_settings_load_the_configured_key_or_the_development_key(tmp_path: Path) -> None:
    seed = new_seed_text()
    configured = Settings(signing_key=SecretStr(seed), signing_key_file=tmp_path / "unused.pem")
    assert _public_bytes(configured.load_signing_key()) == _public_bytes(private_key_from_text(seed))
    assert not (tmp_path / "unused.pem").exists()
    development = Settings(signing_key_file=tmp_path / "dev.pem")
    assert _public_bytes(development.load_signing_key()) == _public_bytes(load_or_create_dev_key(tmp_path / "dev.pem"))
