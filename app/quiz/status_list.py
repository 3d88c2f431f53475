"""Revocation that an offline copy can learn: the W3C Bitstring Status List v1.0.

Every certificate holds one bit of a list the site publishes, chosen at random when it is issued (so a bit's
position says nothing of when or in what order certificates were issued). The bit is 1 once the certificate is
revoked. Its credential names the list and the bit (a BitstringStatusListEntry); the list is itself a credential
signed by the same key, whose `encodedList` is the multibase base64url (prefix `u`) of the GZIP of the bits,
bit 0 the most significant bit of the first byte. A list has LIST_BITS bits, the specification's minimum, so that
each list hides its certificates among 131,072 places.
"""

from __future__ import annotations

import base64
import gzip
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from app.quiz.signing import utc_text

LIST_BITS = 131_072  # 16 KiB: the smallest list the specification allows, for group privacy
PURPOSE = "revocation"
LIST_VALID_FOR = timedelta(days=1)  # a verifier that honours validUntil refuses a replayed old list after this


def list_url(base_url: str, list_number: int) -> str:
    """Where list number list_number is published (the statusListCredential of its entries)."""
    return f"{base_url}/credentials/status/{list_number}"


def place(status_index: int) -> tuple[int, int]:
    """(list number, bit in that list) of a certificate's status index."""
    return divmod(status_index, LIST_BITS)


def lists_for(issued: int) -> int:
    """How many lists new indexes are drawn across when `issued` certificates hold one: enough that at most
    half of all bits are taken, so a random draw is free with probability at least 1/2."""
    return 1 + 2 * issued // LIST_BITS


def entry(base_url: str, status_index: int) -> dict[str, Any]:
    """The credentialStatus of the credential whose certificate holds this index."""
    number, bit = place(status_index)
    url = list_url(base_url, number)
    return {"id": f"{url}#{bit}", "type": "BitstringStatusListEntry", "statusPurpose": PURPOSE,
            "statusListIndex": str(bit), "statusListCredential": url}


def encoded_list(set_bits: Iterable[int]) -> str:
    """The encodedList of a list whose given bits (0 ≤ bit < LIST_BITS) are 1 and all others 0."""
    bits = bytearray(LIST_BITS // 8)
    for bit in set_bits:
        if not 0 <= bit < LIST_BITS:
            raise ValueError(f"a status list has bits 0 to {LIST_BITS - 1}, not {bit}.")
        bits[bit // 8] |= 0x80 >> (bit % 8)
    # mtime=0: the same bits always give the same text, so the list's ETag changes only when a bit does.
    packed = gzip.compress(bytes(bits), compresslevel=9, mtime=0)
    return "u" + base64.urlsafe_b64encode(packed).rstrip(b"=").decode("ascii")


def status_list_credential(base_url: str, list_number: int, revoked_bits: Iterable[int], issuer: str,
                           now: datetime) -> dict[str, Any]:
    """The BitstringStatusListCredential of one list as it stands now: valid from now for LIST_VALID_FOR."""
    url = list_url(base_url, list_number)
    return {
        "@context": ["https://www.w3.org/ns/credentials/v2"],
        "id": url,
        "type": ["VerifiableCredential", "BitstringStatusListCredential"],
        "issuer": issuer,
        "validFrom": utc_text(now),
        "validUntil": utc_text(now + LIST_VALID_FOR),
        "credentialSubject": {"id": f"{url}#list", "type": "BitstringStatusList", "statusPurpose": PURPOSE,
                              "encodedList": encoded_list(revoked_bits)},
    }
