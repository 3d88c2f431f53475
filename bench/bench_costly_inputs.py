"""Server CPU per request with the costliest input each route that reads numbers accepts, next to /healthz.

Inputs at the edges of what the parser takes: a fraction of two 540-digit decimals at opposite ends of the
exponent range (a value of 10^5 digits), 1088-digit decimals at 10^±100000, the smallest and largest exponents,
hex floats at 2^±400000, a fraction that never terminates; and the largest block quantisations. Each row is the
CPU time one real server process (one uvicorn worker, on loopback) spent on REQUESTS requests, each asking for
a different value (other digits and another exponent, so that no cache serves it), divided by REQUESTS.
The goal: every accepted input under GOAL_MS.
"""

from __future__ import annotations

import asyncio
import json
from urllib.parse import quote

from bench.loopback import Client, cpu_seconds, server

REQUESTS = 20
GOAL_MS = 50.0
UNLIMITED = "1000000/minute"


def _value(kind: str, n: int) -> str:
    """The n-th variant (other digits, another exponent) of one kind of costly input."""
    d, e = str(1 + n % 9), 100000 - n
    return {
        "fraction at both ends": f"{'7' * 539}{d}e-{e // 2}/{'3' * 540}e{e // 2}",
        "fraction, non-terminating": f"{d}/3e{e}",
        "1088-digit decimal at 10^-100000": f"1.{'1' * 1086}{d}e-{e}",
        "1088-digit decimal at 10^+100000": f"9.{'9' * 1086}{d}e{e}",
        "1e-100000": f"{d}e-{e}",
        "hex float 2^-400000": f"0x1.{d}p-{4 * e}",
        "hex float 2^+400000": f"0x1.{d}p{4 * e}",
    }[kind]


KINDS = ("fraction at both ends", "fraction, non-terminating", "1088-digit decimal at 10^-100000",
         "1088-digit decimal at 10^+100000", "1e-100000", "hex float 2^-400000", "hex float 2^+400000")
ROUTES = {
    "GET /api/formats/float64/encode": ("/api/formats/float64/encode?value={v}", {}),
    "… stochastic, float16": ("/api/formats/float16/encode?value={v}&rounding=stochastic&seed=1", {}),
    "GET /api/compare": ("/api/compare?value={v}", {}),
    "GET /compare": ("/compare?value={v}", {}),
    "GET /embed/compare": ("/embed/compare?value={v}", {}),
    "GET /visualise/float64": ("/visualise/float64?value={v}", {}),
    "GET /visualise/bfloat16 (htmx)": ("/visualise/bfloat16?value={v}", {"HX-Request": "true"}),
    "GET /api/arithmetic float128 a ÷ b": ("/api/arithmetic?format=float128&op=div&a={v}&b={v}", {}),
    "GET /api/arithmetic float128 √a": ("/api/arithmetic?format=float128&op=sqrt&a={v}", {}),
    "GET /arithmetic float128 fma": ("/arithmetic?format=float128&op=fma&a={v}&b={v}&c={v}", {}),
    "GET /arithmetic float128, 6-step tape": ("/arithmetic?format=float128&op=mul&a={v}&b={v}"
                                              + "&step=div:{v}" * 5, {}),
}
QUANTIZE = {
    "16384 values, MXFP4 in 512 blocks": {"format": "mxfp4"},
    "16384 values, NVFP4 in 1024 blocks": {"format": "nvfp4"},
    "16384 values, MXFP8 in 1024 blocks": {"format": "mxfp8_e4m3", "block_size": 16},
    "16384 values, NF4 in 256 blocks": {"format": "nf4"},
}


# The dot-product lab's largest vectors: 4096 elements each, every method, in the widest input format; and the
# longest numbers the body limit lets through, each a 1088-digit decimal at 10^±100000
DOT = {
    "4096 × 2 numbers, float32, all methods": lambda n: {"format": "float32", "a": [((i * 7919 + n) % 20001 - 10000)
                                                                                   / 37.0 for i in range(4096)],
                                                        "b": [((i * 104729 + n) % 20001 - 10000) / 91.0
                                                              for i in range(4096)]},
    "4096 drawn, bfloat16, all methods": lambda n: {"format": "bfloat16", "n": 4096, "seed": n,
                                                    "distribution": "outliers"},
    "220 × 2 1088-digit decimals, float32": lambda n: {"format": "float32",
                                                      "a": [_value("1088-digit decimal at 10^-100000", n + i)
                                                            for i in range(220)],
                                                      "b": [_value("1088-digit decimal at 10^+100000", n + i)
                                                            for i in range(220)]},
    # every element a midpoint of FP32 written as repr writes it (the exact decimal decides each), and the bits of
    # the last step of Kahan's sum
    "4096 × 2 FP32 midpoints, kahan's step 4096": lambda n: {
        "format": "float32", "step": 4096, "step_method": "kahan",
        "a": [1 + (2 * ((i * 7919 + n) % 8388608) + 1) * 2.0**-24 for i in range(4096)],
        "b": [-1 - (2 * ((i * 104729 + n) % 8388608) + 1) * 2.0**-24 for i in range(4096)]},
    "4096 drawn, float16, all 9 methods, v100's step": lambda n: {"format": "float16", "n": 4096, "seed": n,
                                                                 "distribution": "outliers", "step": 4096,
                                                                 "step_method": "v100"},
    "4096 × 2 fractions, tfloat32, all methods": lambda n: {"format": "tfloat32",
                                                           "a": [f"{i + n}/3e-{i % 40}" for i in range(4096)],
                                                           "b": [f"-{i % 97 + 1}/7e{i % 30}" for i in range(4096)]},
}
# The page: the longest typed vectors its query string takes (single digits, 1900 each), and the longest drawn
DOT_PAGES = {
    "1900 × 2 typed, float32, the last step": lambda n: "/dot?format=float32&a=" + "+".join(
        str((i * 7 + n) % 9 + 1) for i in range(1900)) + "&b=" + "+".join(
        str((i * 5 + n) % 9 + 1) for i in range(1900)),
    "4096 drawn, float16, the last step": lambda n: f"/dot?format=float16&n=4096&seed={n}&distribution=outliers",
    "/embed: 4096 drawn, tfloat32, h100's step": lambda n: (f"/embed/dot?format=tfloat32&n=4096&seed={n}"
                                                            "&distribution=lognormal&bits=h100"),
}


def _quantize_body(settings: dict[str, object], n: int) -> bytes:
    values = [((i * 7919 + n) % 20001 - 10000) / 37.0 for i in range(16384)]  # 13 to 17 digits each
    return json.dumps({**settings, "values": values}).encode()


async def _measure(base: str) -> list[tuple[str, str, float, set[int]]]:
    client = Client(int(base.rsplit(":", 1)[1]))

    async def cpu_ms(send) -> tuple[float, set[int]]:  # type: ignore[no-untyped-def]
        statuses = set()
        before = cpu_seconds(base)
        for n in range(REQUESTS):
            statuses.add((await send(n)).status)
        return (cpu_seconds(base) - before) / REQUESTS * 1e3, statuses

    for _ in range(50):  # warm up: imports, templates, the first connection
        await client.request("GET", "/healthz")
        await client.request("GET", "/compare?value=0.1")
    rows = [("GET /healthz (trivial)", "", *(await cpu_ms(lambda n: client.request("GET", "/healthz"))))]
    for route, (template, headers) in ROUTES.items():
        for kind in KINDS:
            ms, statuses = await cpu_ms(lambda n, t=template, k=kind, h=headers: client.request(
                "GET", t.format(v=quote(_value(k, n), safe="")), h))
            rows.append((route, kind, ms, statuses))
    for label, settings in QUANTIZE.items():
        ms, statuses = await cpu_ms(lambda n, s=settings: client.request(
            "POST", "/api/blocks/quantize", {"Content-Type": "application/json"}, _quantize_body(s, n)))
        rows.append(("POST /api/blocks/quantize", label, ms, statuses))
    for label, body in DOT.items():
        ms, statuses = await cpu_ms(lambda n, b=body: client.request(
            "POST", "/api/dot", {"Content-Type": "application/json"}, json.dumps(b(n)).encode()))
        rows.append(("POST /api/dot", label, ms, statuses))
    for label, path in DOT_PAGES.items():
        ms, statuses = await cpu_ms(lambda n, p=path: client.request("GET", p(n)))
        rows.append(("GET /dot", label, ms, statuses))
    client.close()
    return rows


def main() -> None:
    env = {f"PRECISION_LAB_RATE_LIMIT_{kind}": UNLIMITED
           for kind in ("ATTEMPTS", "VERIFY", "TRAIN", "PASSES", "SUMS")}
    with server(env=env) as base:
        rows = asyncio.run(_measure(base))
    trivial = rows[0][2]
    print(f"server CPU per request, mean of {REQUESTS} requests for different values; one uvicorn worker on loopback")
    print(f"{'route':34} {'input':36} {'CPU ms':>7} {'× trivial':>9}  statuses")
    for route, kind, ms, statuses in rows:
        print(f"{route:34} {kind:36} {ms:7.1f} {ms / max(trivial, 1e-3):9.1f}  {sorted(statuses)}")
    accepted = [(ms, route, kind) for route, kind, ms, statuses in rows[1:] if statuses == {200}]
    refused = [f"{route} {kind}" for route, kind, _, statuses in rows[1:] if statuses != {200}]
    worst = max(accepted)
    print(f"costliest accepted input: {worst[0]:.1f} ms ({worst[1]}, {worst[2]}); goal: under {GOAL_MS:.0f} ms"
          + (f"; not accepted: {', '.join(refused)}" if refused else ""))
