"""The browser's exact codec (static/js/codec.js) in headless Chromium next to the Python codec, in one run.

decode: a bit pattern to its exact decimal string (what a bit flip shows); encode: typed text to its stored value,
the exact error and the relative error (what a keystroke shows). Both cycle through more distinct patterns and
inputs than either side keeps cached, so every operation is worked out afresh.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

from app.formats import FORMATS, decode, encode, parse_number
from app.web.visualise.codec_specs import codec_specs
from app.web.visualise.present import relative
from app.web.visualise.serialise import real_json
from bench.loopback import server

CHROMIUM = Path("/usr/bin/chromium")
SECONDS = 0.5  # per measurement, on each side
DISTINCT = 4096
WANTED = ("float64", "float32", "bfloat16", "float16", "float8_e4m3fn", "float4_e2m1fn", "int8", "nf4", "float128")
FORMAT_IDS: list[str] = [f for f in WANTED if f in FORMATS]
INPUT_KINDS = {
    "short decimal": lambda rng: f"{rng.uniform(-100, 100):.4g}",
    "17 digits": lambda rng: f"{rng.uniform(-1e5, 1e5):.17g}",
    "fraction": lambda rng: f"{rng.randint(1, 10**6)}/{rng.randint(1, 10**6)}",
    "tiny 1e-99999": lambda rng: f"{rng.randint(1, 999)}e-99999",
}

HARNESS = """async ([specs, seconds]) => {
  const codec = await import("/static/js/codec.js");
  const byId = Object.fromEntries(specs.map((s) => [s.id, s]));
  const rate = (step, count) => {
    let done = 0;
    const start = performance.now(), end = start + seconds * 1000;
    while (performance.now() < end) for (let i = 0; i < 64; i++) step(done++ % count);
    return done / ((performance.now() - start) / 1000);
  };
  window.bench = {
    decode: (id, patterns) => {
      const spec = byId[id], bits = patterns.map(BigInt);
      return rate((i) => codec.decode(spec, bits[i]).exactString, bits.length);
    },
    encode: (id, inputs) => rate((i) => {
      const r = codec.encode(byId[id], inputs[i]).rounded;
      return [codec.realText(r.input), codec.realText(r.error), r.relErrorText];
    }, inputs.length),
  };
}"""


def _rate(step: Callable[[int], object], count: int) -> float:
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        for _ in range(64):
            step(done % count)
            done += 1
    return done / (time.perf_counter() - start)


def _python_decode(spec_id: str, patterns: list[int]) -> Callable[[int], object]:
    spec = FORMATS[spec_id]
    return lambda i: decode(spec, patterns[i]).value.exact_string()


def _python_encode(spec_id: str, inputs: list[str]) -> Callable[[int], object]:
    spec = FORMATS[spec_id]

    def step(i: int) -> object:
        result = encode(spec, parse_number(inputs[i]))
        return real_json(result.input), real_json(result.error), relative(result.rel_error)

    return step


def main() -> None:
    if not CHROMIUM.exists():
        print(f"skipped: {CHROMIUM} is missing (apt-get install chromium)")
        return
    from playwright.sync_api import sync_playwright

    rng = random.Random(0)
    rows: list[tuple[str, str, float, float]] = []
    with server() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page()
        page.goto(base + "/")
        page.evaluate(HARNESS, [codec_specs(), SECONDS])
        for spec_id in FORMAT_IDS:
            spec = FORMATS[spec_id]
            patterns = [rng.getrandbits(spec.bits) for _ in range(DISTINCT)]
            js = page.evaluate("([id, patterns]) => bench.decode(id, patterns)", [spec_id, [str(p) for p in patterns]])
            python = _rate(_python_decode(spec_id, patterns), DISTINCT)
            rows.append(("decode", spec_id, js, python))
        for label, make in INPUT_KINDS.items():
            for spec_id in ("float64", "float16", "int8"):
                inputs = [make(rng) for _ in range(DISTINCT)]
                js = page.evaluate("([id, inputs]) => bench.encode(id, inputs)", [spec_id, inputs])
                rows.append((f"encode {label}", spec_id, js, _rate(_python_encode(spec_id, inputs), DISTINCT)))
        browser.close()
    print(f"operations per second, {SECONDS} s each, {DISTINCT} distinct patterns or inputs cycled; "
          "Chromium (headless) vs this Python process")
    print(f"{'operation':24} {'format':16} {'JS ops/s':>11} {'Python ops/s':>13} {'JS / Python':>12}")
    for operation, spec_id, js, python in rows:
        print(f"{operation:24} {spec_id:16} {js:11.0f} {python:13.0f} {js / python:12.2f}")


if __name__ == "__main__":
    main()
