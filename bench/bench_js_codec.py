"""The browser's exact codec (static/js/codec.js) in headless Chromium and in Node next to the Python codec, in one
run (Node is where the parity tests run it: tests/js/).

decode: a bit pattern to its exact decimal string (what a bit flip shows); encode: typed text to its stored value,
the exact error and the relative error (what a keystroke shows). Both cycle through more distinct patterns and
inputs than either side keeps cached, so every operation is worked out afresh.
"""

from __future__ import annotations

import random
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.formats import FORMATS, decode, encode, parse_number
from app.web.visualise.codec_specs import codec_specs
from app.web.visualise.present import relative
from app.web.visualise.serialise import real_json
from bench.loopback import server
from tests.helpers.node import Harness

CHROMIUM = Path("/usr/bin/chromium")
NODE_HARNESS = Path(__file__).with_name("js_codec_rate.mjs")
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


Job = tuple[str, str, list[Any]]  # (operation, format id, the patterns or inputs it cycles through)


def _jobs(rng: random.Random) -> list[Job]:
    jobs: list[Job] = [("decode", spec_id, [rng.getrandbits(FORMATS[spec_id].bits) for _ in range(DISTINCT)])
                       for spec_id in FORMAT_IDS]
    for label, make in INPUT_KINDS.items():
        for spec_id in ("float64", "float16", "int8"):
            jobs.append((f"encode {label}", spec_id, [make(rng) for _ in range(DISTINCT)]))
    return jobs


def _python(operation: str, spec_id: str, items: list[Any]) -> float:
    step = _python_decode(spec_id, items) if operation == "decode" else _python_encode(spec_id, items)
    return _rate(step, DISTINCT)


def _call(operation: str, items: list[Any]) -> tuple[str, list[Any]]:
    """The harness's function for an operation, and its items as JSON carries them (patterns as decimal text)."""
    return ("decode", [str(p) for p in items]) if operation == "decode" else ("encode", items)


Rate = Callable[[str, str, list[Any]], float]  # (operation, format id, items) -> operations per second


@contextmanager
def _chromium() -> Iterator[Rate | None]:
    """The codec's rates in headless Chromium; None where there is no Chromium."""
    if not CHROMIUM.exists():
        yield None
        return
    from playwright.sync_api import sync_playwright

    with server() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page()
        page.goto(base + "/")
        page.evaluate(HARNESS, [codec_specs(), SECONDS])

        def rate(operation: str, spec_id: str, items: list[Any]) -> float:
            call, arguments = _call(operation, items)
            return page.evaluate(f"([id, items]) => bench.{call}(id, items)", [spec_id, arguments])

        yield rate
        browser.close()


@contextmanager
def _node() -> Iterator[Rate | None]:
    """The codec's rates in Node (bench/js_codec_rate.mjs); None where there is no node."""
    if shutil.which("node") is None:
        yield None
        return
    node = Harness(NODE_HARNESS)
    node.call("setup", codec_specs())

    def rate(operation: str, spec_id: str, items: list[Any]) -> float:
        call, arguments = _call(operation, items)
        return float(node.call(call, spec_id, arguments, SECONDS))

    yield rate
    node.close()


def _cell(x: float | None, width: int, digits: int) -> str:
    return f"{x:{width}.{digits}f}" if x else f"{'—':>{width}}"


def main() -> None:
    rows: list[tuple[str, str, float | None, float | None, float]] = []
    with _chromium() as chromium, _node() as node:
        for operation, spec_id, items in _jobs(random.Random(0)):
            rows.append((operation, spec_id, chromium(operation, spec_id, items) if chromium else None,
                         node(operation, spec_id, items) if node else None, _python(operation, spec_id, items)))
    if not CHROMIUM.exists():
        print(f"Chromium skipped: {CHROMIUM} is missing (apt-get install chromium)")
    print(f"operations per second, {SECONDS} s each, {DISTINCT} distinct patterns or inputs cycled; "
          "Chromium (headless) and Node vs this Python process")
    print(f"{'operation':24} {'format':16} {'Chromium ops/s':>15} {'Node ops/s':>11} {'Python ops/s':>13} "
          f"{'Chromium/Py':>12} {'Node/Py':>8}")
    for operation, spec_id, browser, in_node, python in rows:
        print(f"{operation:24} {spec_id:16} {_cell(browser, 15, 0)} {_cell(in_node, 11, 0)} {python:13.0f} "
              f"{_cell(browser and browser / python, 12, 2)} {_cell(in_node and in_node / python, 8, 2)}")

if __name__ == "__main__":
    main()
