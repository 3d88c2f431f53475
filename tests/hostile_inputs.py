"""Hostile text a visitor can type into any field: one table for every form test, nastiest first.

Gathered from the per-route tables of tests/web (test_pages, test_api, test_certificates, test_memory, test_quiz_api):
markup that would run if reflected unescaped, text no parser expects, and sizes no person types.
"""

from __future__ import annotations

# Markup that runs script if a page reflects it unescaped; a page showing it must show it escaped.
INJECTIONS = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '" onmouseover="alert(1)',
    "'><svg onload=alert(1)>",
)

HOSTILE_TEXTS = (
    *INJECTIONS,
    "",
    "x" * 5000,
    "9" * 5000,
    "\x00",
    "\r\nSet-Cookie: injected=1",
    "1e999999999",
    "-1",
    "   ",
    "nan(0x1)",
    "٣",  # an Arabic-Indic digit (small: /train reads it as 3 and really trains)
    "１２",  # fullwidth digits
    "\u202e1",  # right-to-left override
    "😀" * 50,
    "' OR '1'='1",
    "1; DROP TABLE certificates; --",
    "../../etc/passwd",
    "%00",
    "{{7*7}}",
)

# The few every field gets at least, where a test must keep its number of requests down.
NASTIEST = (INJECTIONS[0], INJECTIONS[2], "", "x" * 5000, "\x00", "\r\nSet-Cookie: injected=1", "1e999999999")
