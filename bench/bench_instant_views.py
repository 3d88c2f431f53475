"""The instant views in headless Chromium: a bit click to the updated visualiser (float16, float32, float64 and
an MXFP4 block element's edit), a keystroke to the updated /compare, with the requests each sent to the server.

Two times per event, by performance.now(): from its dispatch to the view changed in the DOM (the script's work:
the pages update synchronously, inside the event), and to the next animation frame after that (what the student
waits for, frame alignment included; headless Chromium draws at 60 Hz). The same view through the server (what
the page waited for before it updated in the browser: a fetch of the URL the script moved to) is timed beside
it for the ratio.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from bench.loopback import server

CHROMIUM = Path("/usr/bin/chromium")
REPEATS = 41

# (label, page, what one event does, the element whose text changes)
CASES = (
    ("bit click float16", "/visualise/float16?value=0.1", "bit", "[data-stored]"),
    ("bit click float32", "/visualise/float32?value=0.1", "bit", "[data-stored]"),
    ("bit click float64", "/visualise/float64?value=0.1", "bit", "[data-stored]"),
    ("keystroke visualiser float64", "/visualise/float64?value=0.1", "key", "[data-stored]"),
    ("keystroke /compare", "/compare?value=0.1", "key", "#compare-table"),
    ("keystroke mxfp4 block", "/visualise/mxfp4?preset=outlier", "block", "[data-block-result]"),
    ("keystroke /arithmetic float16", "/arithmetic", "key:#ar-a", "[data-arithmetic-result]"),
    ("keystroke /arithmetic float128 tape", "/arithmetic?format=float128&op=div&a=1&b=3"
     + "&step=mul:3&step=sqrt" * 15, "key:#ar-a", "[data-arithmetic-result]"),
)

TIMER = """async ([kind, watched, i]) => {
  const target = document.querySelector(watched);
  const before = target.textContent;
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  const start = performance.now();
  if (kind === "bit") {
    const bits = document.querySelectorAll("[data-bit-grid] [data-bit]");
    bits[1 + (i % (bits.length - 1))].click();
  } else {
    const box = document.querySelector(kind === "block" ? "#values" : kind.startsWith("key:") ? kind.slice(4)
      : "#value");
    box.value = kind === "block" ? box.value.replace(/^[^,\\s]+/, String(0.5 + (i + 1) / 64))
      : String(0.1 + (i + 1) / 1000);
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }
  const current = () => document.querySelector(watched);
  let updated = current() && current().textContent !== before ? performance.now() - start : null;
  while (updated === null && performance.now() - start < 2000) {
    await frame();
    if (current() && current().textContent !== before) updated = performance.now() - start;
  }
  await frame();
  return [updated, performance.now() - start];
}"""


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> None:
    if not CHROMIUM.exists():
        print(f"skipped: {CHROMIUM} is missing (apt-get install chromium)")
        return
    from playwright.sync_api import sync_playwright

    rows = []
    with server() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page()
        for label, path, kind, watched in CASES:
            page.goto(base + path)
            page.wait_for_load_state("networkidle")
            requests: list[str] = []

            def seen(request: object, requests: list[str] = requests) -> None:
                requests.append(str(getattr(request, "url", "")))

            page.on("request", seen)
            updates, frames, unchanged = [], [], 0
            for i in range(REPEATS):
                updated, framed = page.evaluate(TIMER, [kind, watched, i])
                unchanged += updated is None
                if updated is not None:
                    updates.append(updated)
                    frames.append(framed)
            page.remove_listener("request", seen)
            trips = []
            for _ in range(REPEATS // 4):
                trips.append(page.evaluate("""async () => { const start = performance.now();
                  await (await fetch(location.href, {headers: {"HX-Request": "true"}})).text();
                  return performance.now() - start; }"""))
            rows.append((label, _median(updates), _median(frames), len(requests), unchanged, _median(trips)))
        browser.close()
    print(f"event to updated view in headless Chromium, medians of {REPEATS} (ms): to the DOM updated, and to the "
          "next frame; requests sent meanwhile; the same view fetched from the server (loopback) beside it")
    print(f"{'case':30} {'to DOM':>8} {'to frame':>9} {'requests':>9} {'no change':>10} "
          f"{'server ms':>10} {'server / DOM':>13}")
    for label, update, frame, sent, unchanged, trip in rows:
        print(f"{label:30} {update:8.2f} {frame:9.2f} {sent:9d} {unchanged:10d} {trip:10.2f} {trip / update:13.1f}")


if __name__ == "__main__":
    main()
