"""Ed25519 signatures over certificates, the key that makes them, and its public JWKS."""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from joserfc.jwk import OKPKey
from joserfc.util import urlsafe_b64decode, urlsafe_b64encode

ALGORITHM = "EdDSA"
_SEED_BYTES = 32


class CertificateFields(Protocol):
    """What a certificate's signature covers; a stored Certificate row has these attributes."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def quiz(self) -> str: ...
    @property
    def score(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def issued_at(self) -> datetime: ...


class Signed(NamedTuple):
    signature: str  # base64url, no padding
    key_id: str


def private_key_from_text(text: str) -> Ed25519PrivateKey:
    """An Ed25519 private key from PEM (PKCS#8) or from the base64 of its 32-byte seed."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_private_key(text.encode("ascii"), password=None)
        except (ValueError, TypeError, UnsupportedAlgorithm):
            raise ValueError("the PEM text is not an unencrypted private key.") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError("the PEM key is not an Ed25519 key.")
        return key
    seed = _raw_key_bytes(text, "the key is neither PEM nor base64.", "a base64 Ed25519 seed")
    return Ed25519PrivateKey.from_private_bytes(seed)


def public_key_from_text(text: str) -> Ed25519PublicKey:
    """An Ed25519 public key from its JWK `x` (base64url of the 32 raw bytes, as the JWKS shows it) or PEM."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(text.encode("ascii"))
        except (ValueError, TypeError, UnsupportedAlgorithm):
            raise ValueError("the PEM text is not a public key.") from None
        if not isinstance(key, Ed25519PublicKey):
            raise ValueError("the PEM key is not an Ed25519 key.")
        return key
    raw = _raw_key_bytes(text, "a public key is the `x` of its JWK (base64url) or PEM.", "an Ed25519 public key")
    return Ed25519PublicKey.from_public_bytes(raw)


def _raw_key_bytes(text: str, unreadable: str, what: str) -> bytes:
    """The 32 bytes of a key written in base64 or base64url, padded or not; ValueError with a sentence otherwise."""
    try:
        raw = base64.b64decode(text.translate(str.maketrans("-_", "+/")) + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(unreadable) from None
    if len(raw) != _SEED_BYTES:
        raise ValueError(f"{what} holds {_SEED_BYTES} bytes, this one {len(raw)}.")
    return raw


def new_seed_text() -> str:
    """The base64 of a fresh 32-byte Ed25519 seed, the form the signing_key setting reads."""
    seed = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return base64.b64encode(seed).decode("ascii")


def load_or_create_dev_key(path: Path) -> Ed25519PrivateKey:
    """The key kept in path, which is generated there (mode 0600) on first use."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".signing-key-")  # mkstemp: mode 0600
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(pem)
            # A link never replaces a file, so when two workers start at once both end up with the first key.
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
        finally:
            os.unlink(temporary)
    return private_key_from_text(path.read_text(encoding="ascii"))


def key_id(public_key: Ed25519PublicKey) -> str:
    """The RFC 7638 JWK thumbprint of the key: the `kid` of its JWK and of every signature it makes."""
    return OKPKey.import_key(public_key).thumbprint()


def key_url(base_url: str, thumbprint: str) -> str:
    """Where one public key is published as a JWK: the `kid` that verifiers dereference (Open Badges 3.0, 8.2.4.1)."""
    return f"{base_url}/.well-known/jwks/{thumbprint}.json"


def jwk(public_key: Ed25519PublicKey, base_url: str) -> dict[str, Any]:
    """One public key as a JWK, named by its URL, which answers with this very JWK."""
    return {
        **OKPKey.import_key(public_key).as_dict(private=False),
        "kid": key_url(base_url, key_id(public_key)),
        "alg": ALGORITHM,
        "use": "sig",
    }


def jwks(public_keys: Iterable[Ed25519PublicKey], base_url: str) -> dict[str, Any]:
    """The JSON Web Key Set that publishes these public keys for verifiers."""
    return {"keys": [jwk(public_key, base_url) for public_key in public_keys]}


def certificate_payload(certificate: CertificateFields) -> dict[str, object]:
    """The fields a certificate signature covers, as JSON values."""
    return {
        "id": certificate.id,
        "name": certificate.name,
        "quiz": certificate.quiz,
        "score": certificate.score,
        "total": certificate.total,
        "issued_at": utc_text(certificate.issued_at),
    }


def utc_text(moment: datetime) -> str:
    """An aware datetime as ISO 8601 UTC to the second, e.g. 2026-01-31T12:00:00Z."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def canonical_json(payload: Mapping[str, object]) -> bytes:
    """Sorted keys, no spaces, UTF-8: the same payload always gives the same bytes."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sign_certificate(key: Ed25519PrivateKey, payload: Mapping[str, object]) -> str:
    """The base64url Ed25519 signature of the payload's canonical JSON."""
    return urlsafe_b64encode(key.sign(canonical_json(payload))).decode("ascii")


def verify_certificate(public_key: Ed25519PublicKey, payload: Mapping[str, object], signature: str) -> bool:
    """Whether signature is this key's signature of exactly this payload."""
    try:
        public_key.verify(urlsafe_b64decode(signature.encode("ascii")), canonical_json(payload))
    except (InvalidSignature, ValueError):  # binascii.Error and UnicodeEncodeError are ValueErrors
        return False
    return True


def certificate_signer(key: Ed25519PrivateKey) -> Callable[[Mapping[str, object]], Signed]:
    """A function that signs certificate payloads with key and names the key that signed."""
    kid = key_id(key.public_key())
    return lambda payload: Signed(sign_certificate(key, payload), kid)
