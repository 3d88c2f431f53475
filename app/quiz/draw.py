"""Drawing an attempt: a seeded mix of written questions across every topic, and generated questions."""

from __future__ import annotations

import base64
import hashlib
import random
from collections.abc import Sequence

from app.quiz.bank import Bank
from app.quiz.generators import GENERATORS, PREFIX, generate, generated_question
from app.quiz.questions import Question

DEFAULT_COUNT = 12
MAX_COUNT = 100
# Half the questions are generated from the formats core: then even a bot that has learned every written answer
# from the feedback must compute at least 4 of the 6 generated ones to reach 80 %.
GENERATED_SHARE = 2
SHOWN_PREFIX = "gen-"
DRAWN_GENERATORS = [name for name, generator in GENERATORS.items() if generator.drawn]


def draw_attempt(bank: Bank, seed: int, count: int = DEFAULT_COUNT) -> list[Question]:
    """`count` distinct questions, the same for the same seed; every topic is asked when count allows."""
    if not 1 <= count <= MAX_COUNT:
        raise ValueError(f"An attempt has 1 to {MAX_COUNT} questions, not {count}.")
    rng = random.Random(seed)
    written_count = min(count - count // GENERATED_SHARE, len(bank.questions))
    topics = rng.sample(bank.topics, len(bank.topics))
    written = [rng.choice(topic.questions) for topic in topics[:written_count]]
    chosen = {question.id for question in written}
    rest = [question for question in bank.questions.values() if question.id not in chosen]
    written += rng.sample(rest, written_count - len(written))
    attempt = written + _generated(rng, count - written_count)
    rng.shuffle(attempt)
    return attempt


def _generated(rng: random.Random, count: int) -> list[Question]:
    """Distinct generated questions, taking the generators in turns, each turn in a random order."""
    questions: dict[str, Question] = {}
    turn: list[str] = []
    while len(questions) < count:
        turn = turn or rng.sample(DRAWN_GENERATORS, len(DRAWN_GENERATORS))
        question = generate(turn.pop(), rng)
        questions.setdefault(question.id, question)
    return list(questions.values())


def question_from_id(bank: Bank, question_id: str) -> Question:
    """The question with this id, from the bank or rebuilt from a generated id; UnknownQuestion otherwise."""
    return bank.questions.get(question_id) or generated_question(question_id)


def shown_id(seed: int, question_id: str) -> str:
    """The id that the attempt's pages and API show for one of its questions. A written question keeps its name;
    a generated one, whose id holds its parameters, is shown as a digest of the attempt's seed (which is never
    shown) and that id: its parameters cannot be read from it, and it has another id in every attempt."""
    if not question_id.startswith(PREFIX + ":"):
        return question_id
    digest = hashlib.sha256(f"{seed}:{question_id}".encode()).digest()[:10]
    return SHOWN_PREFIX + base64.b32encode(digest).decode("ascii").lower()


def stored_id(seed: int, question_ids: Sequence[str], shown: str) -> str | None:
    """Which of an attempt's questions (their stored ids) is shown as `shown`; None for none of them."""
    return next((question_id for question_id in question_ids if shown_id(seed, question_id) == shown), None)


def public_question(question: Question, seed: int) -> dict[str, object]:
    """A question of an attempt as its learner sees it: no answer, and its shown id."""
    return {**question.public(), "id": shown_id(seed, question.id)}
