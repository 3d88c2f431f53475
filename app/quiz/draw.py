"""Drawing an attempt: a seeded mix of written questions across every topic, and generated questions."""

from __future__ import annotations

import random

from app.quiz.bank import Bank
from app.quiz.generators import GENERATORS, generate, generated_question
from app.quiz.questions import Question

DEFAULT_COUNT = 12
MAX_COUNT = 100
GENERATED_SHARE = 4  # one question in four is generated from the formats core


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
        turn = turn or rng.sample(list(GENERATORS), len(GENERATORS))
        question = generate(turn.pop(), rng)
        questions.setdefault(question.id, question)
    return list(questions.values())


def question_from_id(bank: Bank, question_id: str) -> Question:
    """The question with this id, from the bank or rebuilt from a generated id; UnknownQuestion otherwise."""
    return bank.questions.get(question_id) or generated_question(question_id)
