"""Requests per second of the visualiser's fragment and the JSON API next to the app's trivial endpoint.

A repeated URL is served from the page cache; the row below it asks for a new value every time. The same fragment
in Turkish (its language from the URL's prefix, its sentences from the catalog, a decimal comma read) is held to
the English one: issue 13's goal is within 10 %.
"""

from __future__ import annotations

from bench.loopback import hammer, server

SECONDS = 5.0
CONNECTIONS = 8
GOAL = 0.5  # the visualiser fragment should serve at least half the trivial endpoint's rate

# a different value on every request, so none is served from the page cache (it holds 1024)
DISTINCT = [f"/visualise/float16?value=0.{i:05d}" for i in range(1, 20000)]
DISTINCT_TR = [f"/tr/visualise/float16?value=0,{i:05d}" for i in range(1, 20000)]
LANGUAGE_GOAL = 0.10  # the Turkish fragment within 10 % of the English one

ENDPOINTS = [
    ("trivial /healthz", "/healthz", {}),
    ("visualiser fragment", "/visualise/float16?value=0.1", {"HX-Request": "true"}),
    ("  … a new value each time", DISTINCT, {"HX-Request": "true"}),
    ("  … in Turkish", "/tr/visualise/float16?value=0,1", {"HX-Request": "true"}),
    ("  … in Turkish, a new value", DISTINCT_TR, {"HX-Request": "true"}),
    ("visualiser page", "/visualise/float16?value=0.1", {}),
    ("encode API", "/api/formats/float16/encode?value=0.1", {}),
    ("compare API (20 formats)", "/api/compare?value=0.3952", {}),
]


def main() -> None:
    with server() as base:
        hammer(base, "/healthz", 1.0, CONNECTIONS)  # warm up
        rows = [(label, hammer(base, path, SECONDS, CONNECTIONS, headers)) for label, path, headers in ENDPOINTS]
    baseline = rows[0][1]["rps"]
    print(f"one uvicorn worker, {CONNECTIONS} keep-alive connections, {SECONDS:.0f} s each, on loopback")
    print(f"{'endpoint':28} {'req/s':>8} {'ratio':>6} {'p50 ms':>7} {'p99 ms':>7}  statuses")
    for label, row in rows:
        ratio = row["rps"] / baseline
        print(f"{label:28} {row['rps']:8.0f} {ratio:6.2f} {row['p50_ms']:7.2f} {row['p99_ms']:7.2f}  {row['statuses']}")
    fragment = rows[1][1]["rps"] / baseline
    print(f"visualiser fragment / trivial = {fragment:.2f} (goal: at least {GOAL})")
    rate = {label.strip(" …"): row["rps"] for label, row in rows}
    pairs = [("visualiser fragment", "in Turkish"), ("a new value each time", "in Turkish, a new value")]
    for english, turkish in pairs:
        print(f"Turkish / English, {english}: {rate[turkish] / rate[english]:.2f} "
              f"(goal: at least {1 - LANGUAGE_GOAL:.2f})")
