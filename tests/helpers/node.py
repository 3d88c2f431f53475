"""The browser's own modules run in Node, for the tests that hold them to the Python cores where no DOM is needed.

One Node process per harness: it imports the harness module (an ES module whose exports are the calls it answers)
and answers one line of JSON per call, `{"ok": result}` or `{"error": stack}`. A call is sent and its answer read
apart (`send`, then `receive`), so that Python can work out its reference while Node works out its own, one core
each.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "static" / "js"
# Reads a call a line ({"call", "args"}), awaits the harness's export of that name, writes its answer a line.
_RUNNER = """
import { createInterface } from "node:readline";
const harness = await import(process.argv[1]);
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let answer;
  try {
    const { call, args } = JSON.parse(line);
    answer = { ok: await harness[call](...args) };
  } catch (error) {
    answer = { error: String(error && error.stack || error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\\n");
}
"""


def node_or_skip() -> str:
    """The node executable; the test is skipped, saying why, where there is none (CI has it: the Makefile needs it)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH: the JavaScript parity tests run the browser's modules in Node")
    return node


class Harness:
    """A Node process running one harness module; `call` a function it exports with JSON arguments."""

    def __init__(self, module: Path) -> None:
        self._process = subprocess.Popen(
            [node_or_skip(), "--no-warnings", "--input-type=module", "-e", _RUNNER,
             module.resolve().as_uri()],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8", cwd=ROOT)

    def send(self, call: str, *args: Any) -> None:
        """Ask for `call(*args)`; Node works it out while the caller goes on."""
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps({"call": call, "args": args}) + "\n")
        self._process.stdin.flush()

    def receive(self) -> Any:
        """The answer to the oldest call sent and not yet received; an error in Node fails the test with its stack."""
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"node ended (exit status {self._process.wait()}) before answering")
        answer = json.loads(line)
        if "error" in answer:
            raise AssertionError("the harness failed in Node:\n" + answer["error"])
        return answer["ok"]

    def call(self, call: str, *args: Any) -> Any:
        self.send(call, *args)
        return self.receive()

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=30)


@contextmanager
def harness(module: Path) -> Iterator[Harness]:
    """A Node process running `module` for as long as the block lasts."""
    running = Harness(module)
    try:
        yield running
    finally:
        running.close()
