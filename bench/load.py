"""`make load`: a bounded load test of one real server on loopback.

Phase 1: 100 concurrent clients for LOAD_SECONDS (default 30) loop over a mix of visualiser pages and htmx
fragments (a new value nearly every time), the compare page and API, certificate lookups (real and unknown IDs),
and the quiz (the start page, starting an attempt, answering a question). Phase 2: the visualiser traffic alone as
a baseline (calm), then the same while 50 clients fire training runs (POST /api/train and the live stream, each a
new seed) again and again for the whole window (burst); a run started in the window is waited for, up to its time
limit (the server's train_max_seconds, set to the window here). Prints requests, req/s, p50 and p99 per kind and
the statuses per phase, then a table of the calm and burst phases: the visualiser's p50 and p99, the runs accepted,
refused (503, every slot taken) and finished within their limit, and three goals: no errors other than the intended
429/503, at least 90 % of the accepted burst runs finished within their limit, and a visualiser p99 under the burst
at most 3x its calm p99. Exits non-zero only on unintended errors (5xx, transport errors, unexpected 4xx).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from app.formats import SCALAR_FORMATS
from app.quiz import load_bank, question_from_id
from app.quiz import right_answer as quiz_right_answer
from app.quiz.certificate_id import new_certificate_id
from app.store.database import create_database_engine, open_session
from app.store.models import Attempt
from bench.loopback import DATABASES, Client, Response, percentile, server

SECONDS = float(os.environ.get("LOAD_SECONDS", "30"))
CLIENTS = 100
BURST = 50
WINDOW = min(10.0, SECONDS)  # each half of phase 2
RUN_LIMIT = WINDOW  # the server's train_max_seconds: a run accepted in the burst must finish within the window's length
FINISHED_GOAL = 0.9
# One loopback address stands for every client here, so the per-IP limits of a public site (20 attempts,
# 60 lookups and 30 runs a minute) would turn nearly every quiz and verify request into a 429 and measure nothing.
RATE_LIMIT = "1000000/minute"
RATE_LIMITED = ("ATTEMPTS", "VERIFY", "TRAIN", "PASSES")
CERTIFICATES = 3
RATIO_GOAL = 3.0
INTENDED = {429, 503}
JSON = {"Content-Type": "application/json"}
HX = {"HX-Request": "true"}
BANK = load_bank()
FORMATS = [spec.id for spec in SCALAR_FORMATS]
SIXTEEN_BIT = [spec.id for spec in SCALAR_FORMATS if spec.bits == 16]


@dataclass
class Kind:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    unexpected: int = 0  # 4xx other than the expected ones and 429
    transport: int = 0


class Tally:
    """Latencies and statuses of one phase, per kind of request."""

    def __init__(self) -> None:
        self.kinds: defaultdict[str, Kind] = defaultdict(Kind)
        self.runs: Counter[str] = Counter()  # training runs: refused, finished (within the limit), unfinished
        self.run_seconds: list[float] = []  # of the runs accepted
        self.started = time.perf_counter()
        self.elapsed = 0.0

    async def send(self, client: Client, kind: str, expected: set[int], method: str, path: str,
                   headers: dict[str, str] | None = None, body: bytes = b"") -> Response | None:
        """Send one request and count it under `kind`; None on a transport error."""
        row = self.kinds[kind]
        start = time.perf_counter()
        try:
            response = await client.request(method, path, headers, body)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            row.transport += 1
            return None
        row.latencies.append(time.perf_counter() - start)
        row.statuses[response.status] += 1
        if 400 <= response.status < 500 and response.status not in expected | INTENDED:
            row.unexpected += 1
        return response

    def stop(self) -> None:
        self.elapsed = time.perf_counter() - self.started

    def unintended(self) -> int:
        return sum(k.unexpected + k.transport + sum(n for s, n in k.statuses.items() if s >= 500 and s not in INTENDED)
                   for k in self.kinds.values())

    def p99(self, kinds: list[str]) -> float:
        return percentile(sorted(s for k in kinds for s in self.kinds[k].latencies), 0.99)

    def print(self, title: str) -> None:
        print(f"\n{title} ({self.elapsed:.1f} s)")
        print(f"{'kind':22} {'requests':>8} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'2xx':>7} "
              f"{'4xx':>14} {'429':>5} {'503':>5} {'5xx':>4} {'transport':>9}")
        for name, k in sorted(self.kinds.items()):
            k.latencies.sort()
            count = Counter({"2xx": 0, "5xx": 0})
            other_4xx: Counter[int] = Counter()
            for status, n in k.statuses.items():
                if status in INTENDED:
                    count[str(status)] += n
                elif 400 <= status < 500:
                    other_4xx[status] += n
                else:
                    count[f"{status // 100}xx"] += n
            fours = " ".join(f"{s}×{n}" for s, n in sorted(other_4xx.items())) or "0"
            print(f"{name:22} {len(k.latencies):8} {len(k.latencies) / self.elapsed:7.1f} "
                  f"{percentile(k.latencies, 0.5):8.1f} {percentile(k.latencies, 0.99):8.1f} {count['2xx']:7} "
                  f"{fours:>14} {count['429']:5} {count['503']:5} {count['5xx']:4} {k.transport:9}")


# -- what the clients ask for ----------------------------------------------------------------------


def value(rng: random.Random) -> str:
    """A decimal the visualiser has most likely not seen, of the sizes people type."""
    return quote(f"{rng.uniform(-1, 1) * 10 ** rng.randint(-6, 5):.{rng.randint(1, 9)}g}")


async def visualiser(tally: Tally, client: Client, rng: random.Random) -> None:
    fmt = rng.choice(FORMATS)
    if rng.random() < 0.5:
        await tally.send(client, "visualise page", {200}, "GET", f"/visualise/{fmt}?value={value(rng)}")
    elif rng.random() < 0.8:
        await tally.send(client, "visualise fragment", {200}, "GET", f"/visualise/{fmt}?value={value(rng)}", HX)
    else:
        path = f"/visualise/{rng.choice(SIXTEEN_BIT)}?bits=0x{rng.getrandbits(16):04x}"
        await tally.send(client, "visualise fragment", {200}, "GET", path, HX)


VISUALISER = ["visualise page", "visualise fragment"]


async def compare(tally: Tally, client: Client, rng: random.Random) -> None:
    if rng.random() < 0.4:
        await tally.send(client, "compare page", {200}, "GET", f"/compare?value={value(rng)}")
    else:
        await tally.send(client, "compare API", {200}, "GET", f"/api/compare?value={value(rng)}")


def lookup(certificates: list[str], unknown: list[str]) -> Callable[[Tally, Client, random.Random], Awaitable[None]]:
    async def send(tally: Tally, client: Client, rng: random.Random) -> None:
        known = rng.random() < 0.7
        certificate_id = rng.choice(certificates if known else unknown)
        expected = {200} if known else {404}
        if rng.random() < 0.5:
            await tally.send(client, "verify page", expected, "GET", f"/verify/{certificate_id}")
        else:
            await tally.send(client, "certificate API", expected, "GET", f"/api/certificates/{certificate_id}")
    return send


# An answer of each kind that the API reads (right or wrong, it is 200): the load needs no knowledge.
GUESS = {"single": 0, "multiple": [0], "numeric": "1", "bits": "0x0"}


def right_answers(port: int, attempt: dict[str, Any]) -> dict[str, object]:
    """The right answer to each question of an attempt, by shown id, known as a test knows it: from the stored
    ids in the server's database (a generated question's shown id hides its parameters)."""
    engine = create_database_engine(DATABASES[f"http://127.0.0.1:{port}"])
    try:
        with open_session(engine) as session:
            row = session.get(Attempt, attempt["attempt_id"])
            assert row is not None
            stored = row.question_ids
    finally:
        engine.dispose()
    shown = [question["id"] for question in attempt["questions"]]
    return {public: quiz_right_answer(question_from_id(BANK, question_id))
            for public, question_id in zip(shown, stored, strict=True)}


async def quiz(tally: Tally, client: Client, rng: random.Random) -> None:
    await tally.send(client, "quiz page", {200}, "GET", "/quiz")
    started = await tally.send(client, "quiz start API", {201}, "POST", "/api/quiz/attempts")
    if started is None or started.status != 201:
        return
    attempt = json.loads(started.body)
    question = rng.choice(attempt["questions"])
    body = json.dumps({"question_id": question["id"], "answer": GUESS[question["type"]]}).encode()
    await tally.send(client, "quiz answer API", {200}, "POST", f"/api/quiz/attempts/{attempt['attempt_id']}/answers",
                     JSON | {"X-Attempt-Token": attempt["attempt_token"]}, body)


async def passed_certificate(client: Client, name: str) -> str:
    """Take the quiz through the JSON API to a pass; the certificate's id."""
    attempt = json.loads((await client.request("POST", "/api/quiz/attempts")).body)
    headers = JSON | {"X-Attempt-Token": attempt["attempt_token"]}
    path = f"/api/quiz/attempts/{attempt['attempt_id']}"
    right = right_answers(client.port, attempt)
    for question in attempt["questions"]:
        body = json.dumps({"question_id": question["id"], "answer": right[question["id"]]}).encode()
        answered = await client.request("POST", f"{path}/answers", headers, body)
        assert json.loads(answered.body)["correct"], answered.body
    finish = await client.request("POST", f"{path}/finish", headers, json.dumps({"name": name}).encode())
    finished = json.loads(finish.body)
    assert finished["passed"], finished
    return str(finished["certificate_id"])


# -- the phases -------------------------------------------------------------------------------------


Action = Callable[[Tally, Client, random.Random], Awaitable[None]]


async def clients(port: int, tally: Tally, until: float, mix: list[tuple[float, Action]], count: int) -> None:
    """`count` clients, each on its own keep-alive connection, picking from `mix` by weight until `until`."""
    weights = [w for w, _ in mix]
    actions = [a for _, a in mix]

    async def one(number: int) -> None:
        rng, client = random.Random(number), Client(port)
        try:
            while time.perf_counter() < until:
                await rng.choices(actions, weights)[0](tally, client, rng)
        finally:
            client.close()

    await asyncio.gather(*(one(n) for n in range(count)))


def outcome(response: Response | None) -> str:
    """What became of a training run: refused (every slot taken), finished (whole, within its limit), or unfinished
    (stopped at its limit, cut off, or lost)."""
    if response is None:
        return "unfinished"
    if response.status == 503:
        stopped = b"so it was stopped" in response.body  # the API's 503 for a run past its limit
        return "unfinished" if stopped else "refused"
    if response.status != 200:
        return "unfinished"
    streamed = response.headers.get("content-type", "").startswith("text/event-stream")
    whole = b"event: done" in response.body and b"event: error" not in response.body
    return "finished" if whole or not streamed else "unfinished"


async def burst(port: int, tally: Tally, until: float) -> None:
    """BURST clients that each start a fresh training run, wait it out, and start another until `until`; a 503
    (every slot taken, as intended) makes a client wait its Retry-After, as a browser's retry would."""
    seeds = iter(range(random.randrange(10**6, 10**9), 10**10))

    async def one(number: int) -> None:
        rng, client = random.Random(-number), Client(port)
        try:
            while time.perf_counter() < until:
                seed = next(seeds)
                start = time.perf_counter()
                if number % 2:
                    response = await tally.send(client, "train API", {200}, "POST", "/api/train", JSON,
                                                json.dumps({"seed": seed}).encode())
                else:
                    response = await tally.send(client, "train stream", {200}, "GET", f"/train/stream?seed={seed}")
                seconds = time.perf_counter() - start
                result = outcome(response)
                if result == "finished" and seconds > RUN_LIMIT:
                    result = "unfinished"
                tally.runs[result] += 1
                if result != "refused":
                    tally.run_seconds.append(seconds)
                elif response is not None:
                    await asyncio.sleep(int(response.headers.get("retry-after", "1")) * rng.uniform(0.5, 1.5))
        finally:
            client.close()

    await asyncio.gather(*(one(n) for n in range(BURST)))


async def prepare(port: int) -> tuple[list[str], list[str]]:
    client = Client(port)
    try:
        certificates = [await passed_certificate(client, f"Load Test {n}") for n in range(CERTIFICATES)]
    finally:
        client.close()
    return certificates, [new_certificate_id() for _ in range(CERTIFICATES)]


async def run(port: int) -> list[tuple[str, Tally]]:
    certificates, unknown = await prepare(port)
    mix: list[tuple[float, Action]] = [(5, visualiser), (1.5, compare), (2, lookup(certificates, unknown)), (1.5, quiz)]
    phases = []
    plan: list[tuple[str, float, bool, list[tuple[float, Action]]]] = [
        (f"phase 1: {CLIENTS} clients, the mixed traffic", SECONDS, False, mix),
        (f"phase 2a: {CLIENTS} clients, visualiser alone", WINDOW, False, [(1, visualiser)]),
        (f"phase 2b: {CLIENTS} clients, visualiser, and a burst of {BURST} training runs", WINDOW, True,
         [(1, visualiser)]),
    ]
    for title, seconds, with_burst, phase_mix in plan:
        tally = Tally()
        until = time.perf_counter() + seconds
        training = asyncio.create_task(burst(port, tally, until)) if with_burst else None
        await clients(port, tally, until, phase_mix, CLIENTS)
        tally.stop()
        if training:  # the runs started in the window, waited for: the server ends each within its limit
            await asyncio.wait_for(training, RUN_LIMIT + 30)
        phases.append((title, tally))
    return phases


def summary(calm: Tally, under: Tally) -> tuple[float, float]:
    """Print the calm and burst phases side by side; the burst's share of accepted runs finished within their
    limit, and its visualiser p99 over the calm one."""
    print(f"\n{'phase':8} {'vis p50 ms':>10} {'vis p99 ms':>10} {'runs accepted':>13} {'refused 503':>11} "
          f"{'finished in limit':>17} {'run p50 s':>9} {'run p99 s':>9}")
    for name, tally in (("calm", calm), ("burst", under)):
        latencies = sorted(s for k in VISUALISER for s in tally.kinds[k].latencies)
        accepted = tally.runs["finished"] + tally.runs["unfinished"]
        seconds = sorted(tally.run_seconds)
        print(f"{name:8} {percentile(latencies, 0.5):10.1f} {percentile(latencies, 0.99):10.1f} {accepted:13} "
              f"{tally.runs['refused']:11} {tally.runs['finished']:17} {percentile(seconds, 0.5) / 1000:9.2f} "
              f"{percentile(seconds, 0.99) / 1000:9.2f}")
    accepted = under.runs["finished"] + under.runs["unfinished"]
    share = under.runs["finished"] / accepted if accepted else 0.0
    without, with_burst = calm.p99(VISUALISER), under.p99(VISUALISER)
    ratio = with_burst / without if without else float("inf")
    print(f"burst p99 / calm p99: {with_burst:.1f} / {without:.1f} ms = {ratio:.2f}×")
    return share, ratio


def main() -> int:
    limits = {f"PRECISION_LAB_RATE_LIMIT_{kind}": RATE_LIMIT for kind in RATE_LIMITED}
    with server(env=limits | {"PRECISION_LAB_TRAIN_MAX_SECONDS": str(RUN_LIMIT)}) as base:
        print(f"one uvicorn worker on loopback, a fresh SQLite database and signing key; per-IP rate limits "
              f"raised to {RATE_LIMIT} (every client here shares one address); a run's time limit "
              f"{RUN_LIMIT:g} s; cpus: {os.cpu_count()}", flush=True)
        phases = asyncio.run(run(int(base.rsplit(":", 1)[1])))
    for title, tally in phases:
        tally.print(title)
    share, ratio = summary(phases[1][1], phases[2][1])
    errors = sum(tally.unintended() for _, tally in phases)
    print(f"\nerrors other than 429/503: {errors} (goal 0) {'PASS' if errors == 0 else 'MISS'}")
    print(f"accepted burst runs finished within their limit of {RUN_LIMIT:g} s: {share:.0%} "
          f"(goal ≥ {FINISHED_GOAL:.0%}) {'PASS' if share >= FINISHED_GOAL else 'MISS'}")
    print(f"visualiser p99 under training burst / calm: {ratio:.2f}× "
          f"(goal ≤ {RATIO_GOAL:g}×) {'PASS' if ratio <= RATIO_GOAL else 'MISS'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
