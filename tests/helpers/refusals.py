"""What a refusal says: every 4xx (and 503) the app answers says why in a sentence; the rate limits' sentences."""

from __future__ import annotations

# The sentence of each rate limit's 429, before "; please try again in ...".
REFUSALS = {
    "attempts": "Too many quiz attempts were started from your address",
    "verify": "Too many certificate lookups came from your address",
    "train": "Training runs were started too often from your address",
    "passes": "Certificates were earned too often from your address today, so this passed attempt stays open "
              "until you can finish it",
    "sums": "Sums were asked for too often from your address",
}


def is_sentence(detail: object) -> bool:
    return isinstance(detail, str) and 10 < len(detail) < 400 and detail.rstrip().endswith((".", ")"))
