"""The instant views in headless Chromium: a bit click to the updated visualiser (float16, float32, float64 and
an MXFP4 block element's edit), a keystroke to the updated /compare, with the requests each sent to the server.

Each time is performance.now() from the event's dispatch to the end of the next animation frame after the view
changed: what the student waits for. The same view through the server (the round trip the page made before it
updated in the browser: a fetch of the URL the JS moved to) is timed beside it for the ratio.
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
    ("keystroke mxfp4 block", "/visualise/mxfp4?preset=outlier", "block", "[data-block-view], main"),
)

TIMER = """async ([kind, watched, i]) => {
  const target = document.querySelector(watched.split(", ")[0]) || document.querySelector(watched.split(", ")[1]);
  const before = target.textContent;
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  const start = performance.now();
  if (kind === "bit") {
    const bits = document.querySelectorAll("[data-bit-grid] [data-bit]");
    bits[1 + (i % (bits.length - 1))].click();
  } else {
    const box = kind === "block" ? document.querySelector("textarea, #values") : document.querySelector("#value");
    box.value = kind === "block" ? box.value.replace(/^\\S+/, String(0.5 + i / 64)) : String(0.1 + i / 1000);
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }
  while (target.isConnected && target.textContent === before && performance.now() - start < 2000) await frame();
  await frame();
  const changed = !target.isConnected || target.textContent !== before;
  return [performance.now() - start, changed];
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
            times, unchanged = [], 0
            for i in range(REPEATS):
                took, changed = page.evaluate(TIMER, [kind, watched, i])
                times.append(took)
                unchanged += not changed
            page.remove_listener("request", seen)
            trips = []
            for _ in range(REPEATS // 4):
                trips.append(page.evaluate("""async () => { const start = performance.now();
                  await (await fetch(location.href, {headers: {"HX-Request": "true"}})).text();
                  return performance.now() - start; }"""))
            rows.append((label, _median(times), max(times), len(requests), unchanged, _median(trips)))
        browser.close()
    print(f"event to updated view, median of {REPEATS} (ms), in headless Chromium; requests sent meanwhile; "
          "the same view fetched from the server (loopback) beside it")
    print(f"{'case':30} {'median ms':>10} {'max ms':>8} {'requests':>9} {'no change':>10} "
          f"{'server ms':>10} {'server / JS':>12}")
    for label, median, worst, sent, unchanged, trip in rows:
        print(f"{label:30} {median:10.2f} {worst:8.2f} {sent:9d} {unchanged:10d} {trip:10.2f} "
              f"{trip / median:12.1f}")


if __name__ == "__main__":
    main()
