"""An embedded Data Integrity proof, cryptosuite eddsa-rdfc-2022 (W3C Data Integrity EdDSA Cryptosuites v1.0):
the form of an Open Badges 3.0 credential that a verifier without Ed25519 JWS support checks.

The proof signs the credential's RDF dataset, not its JSON: both the credential (without its proof) and the
proof's options are canonicalised with RDFC-1.0 (URDNA2015 in PyLD), hashed with SHA-256, and the two hashes,
options first, are signed with the site's Ed25519 key. The key is named by a `did:key` verification method,
which any verifier resolves offline to the same public key the JWKS publishes. JSON-LD contexts are never
fetched: the two the credentials use are kept beside this module (contexts/README.md says where from).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from pyld import jsonld

from app.quiz.signing import utc_text

CRYPTOSUITE = "eddsa-rdfc-2022"
_CONTEXT_FILES = {
    "https://www.w3.org/ns/credentials/v2": "credentials-v2.jsonld",
    "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json": "ob-v3p0-context-3.0.3.jsonld",
}
_ED25519_PUB = b"\xed\x01"  # the multicodec prefix of an Ed25519 public key
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


class UnknownContext(ValueError):
    """A document names a JSON-LD context that is not kept here; none is ever fetched."""


@cache
def _context(url: str) -> dict[str, Any]:
    context: dict[str, Any] = json.loads((Path(__file__).parent / "contexts" / _CONTEXT_FILES[url]).read_text("utf-8"))
    return context


def _load_document(url: str, options: object = None) -> dict[str, Any]:
    if url not in _CONTEXT_FILES:
        raise UnknownContext(f"The JSON-LD context {url} is not one kept with the site, and none is fetched.")
    return {"contextUrl": None, "documentUrl": url, "document": _context(url)}


def canonical_nquads(document: dict[str, Any]) -> str:
    """The RDFC-1.0 canonical N-Quads of a JSON-LD document."""
    text: str = jsonld.normalize(document, {"algorithm": "URDNA2015", "format": "application/n-quads",
                                            "documentLoader": _load_document})
    return text


def base58btc(data: bytes) -> str:
    """Bitcoin's base58 alphabet, leading zero bytes as '1's: the `z` multibase encoding without its `z`."""
    number = int.from_bytes(data, "big")
    digits = ""
    while number:
        number, digit = divmod(number, 58)
        digits = _BASE58[digit] + digits
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + digits


def did_key(public_key: Ed25519PublicKey) -> str:
    """The did:key of an Ed25519 public key: its multicodec bytes in base58btc multibase."""
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return f"did:key:z{base58btc(_ED25519_PUB + raw)}"


def verification_method(public_key: Ed25519PublicKey) -> str:
    """The key's verification method in its did:key document (the fragment repeats the key)."""
    did = did_key(public_key)
    return f"{did}#{did.removeprefix('did:key:')}"


def _hash_data(unsecured: dict[str, Any], options: dict[str, Any]) -> bytes:
    return (hashlib.sha256(canonical_nquads(options).encode("utf-8")).digest()
            + hashlib.sha256(canonical_nquads(unsecured).encode("utf-8")).digest())


def with_proof(document: dict[str, Any], key: Ed25519PrivateKey, created: datetime) -> dict[str, Any]:
    """The document with an eddsa-rdfc-2022 DataIntegrityProof for the assertionMethod purpose. Ed25519 is
    deterministic, so the same document, key and creation time always give the same proof."""
    options = {
        "@context": document["@context"],
        "type": "DataIntegrityProof",
        "cryptosuite": CRYPTOSUITE,
        "created": utc_text(created),
        "verificationMethod": verification_method(key.public_key()),
        "proofPurpose": "assertionMethod",
    }
    signature = key.sign(_hash_data(document, options))
    proof = {name: value for name, value in options.items() if name != "@context"}
    # A list of one, as 1EdTech's AchievementCredential schema requires (the same RDF as the bare object).
    return {**document, "proof": [{**proof, "proofValue": f"z{base58btc(signature)}"}]}
