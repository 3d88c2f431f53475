"""Drawing attempts: deterministic for a seed, every topic asked, and a public view without answers."""

from __future__ import annotations

import json

import pytest

from app.quiz import (
    DEFAULT_COUNT,
    BitPattern,
    ChoiceQuestion,
    Question,
    UnknownQuestion,
    draw_attempt,
    load_bank,
    public_question,
    question_from_id,
    shown_id,
    stored_id,
)
from app.quiz.questions import show_bits

BANK = load_bank()
TOPICS = {topic.id for topic in BANK.topics}


def test_the_same_seed_draws_the_same_attempt() -> None:
    for seed in (0, 1, 2**40, -7):
        assert draw_attempt(BANK, seed) == draw_attempt(BANK, seed)


def test_different_seeds_draw_different_attempts() -> None:
    attempts = {tuple(q.id for q in draw_attempt(BANK, seed)) for seed in range(50)}
    assert len(attempts) == 50


@pytest.mark.parametrize("seed", range(30))
def test_an_attempt_mixes_every_topic_and_generated_questions(seed: int) -> None:
    attempt = draw_attempt(BANK, seed)
    assert len(attempt) == DEFAULT_COUNT == 12
    assert len({q.id for q in attempt}) == 12
    written = [q for q in attempt if q.id in BANK.questions]
    assert {q.topic for q in written} == TOPICS
    assert len(attempt) - len(written) == 6  # half generated, each from another generator
    assert len({q.id.split(":")[1] for q in attempt if q.id not in BANK.questions}) == 6


def test_small_and_large_attempts() -> None:
    assert len(draw_attempt(BANK, 1, count=1)) == 1
    small = draw_attempt(BANK, 1, count=4)
    assert len({q.topic for q in small if q.id in BANK.questions}) == 2
    large = draw_attempt(BANK, 1, count=100)
    assert len({q.id for q in large}) == 100
    for count in (0, -1, 101):
        with pytest.raises(ValueError, match="1 to 100 questions"):
            draw_attempt(BANK, 1, count=count)


def test_every_drawn_question_is_rebuilt_from_its_id() -> None:
    for seed in range(30):
        for question in draw_attempt(BANK, seed):
            assert question_from_id(BANK, question.id) == question


@pytest.mark.parametrize("question_id", ["", "no-such-question", "gen:max:float7", "gen:bits:bfloat16:0.10"])
def test_unknown_ids(question_id: str) -> None:
    with pytest.raises(UnknownQuestion):
        question_from_id(BANK, question_id)


def _secrets(question: Question) -> list[str]:
    """Texts that must not reach the browser before the question is answered."""
    texts = [question.explanation] if question.explanation else []
    if isinstance(question, ChoiceQuestion):
        texts += [option.explanation for option in question.options]
    if isinstance(question, BitPattern):
        texts.append(show_bits(question.format, question.answer).split(" ")[0])
    return texts


def _public_questions() -> list[Question]:
    drawn = [q for seed in range(40) for q in draw_attempt(BANK, seed)]
    return list(BANK.questions.values()) + drawn


def test_the_public_view_is_the_contract() -> None:
    for question in _public_questions():
        view = question.public()
        assert set(view) == ({"id", "type", "prompt", "choices"} if question.choices else {"id", "type", "prompt"})
        assert view["type"] in {"single", "multiple", "numeric", "bits"}
        assert json.loads(json.dumps(view)) == view


def test_the_public_view_holds_no_answer_and_no_explanation() -> None:
    for question in _public_questions():
        shown = json.dumps(question.public(), ensure_ascii=False)
        for secret in _secrets(question):
            assert secret not in shown, (question.id, secret)


@pytest.mark.parametrize("seed", range(10))
def test_an_attempt_shows_generated_questions_by_ids_that_hide_their_parameters(seed: int) -> None:
    attempt = draw_attempt(BANK, seed)
    stored = [question.id for question in attempt]
    shown = [public_question(question, seed)["id"] for question in attempt]
    for question_id, public in zip(stored, shown, strict=True):
        if question_id in BANK.questions:
            assert public == question_id  # written questions keep their names
        else:
            assert public.startswith("gen-") and ":" not in public and public != question_id
        assert stored_id(seed, stored, public) == question_id
    # The same question has another shown id in another attempt, and an id not shown is none of them.
    assert all(shown_id(seed + 1, question_id) != public for question_id, public in zip(stored, shown, strict=True)
               if question_id not in BANK.questions)
    assert stored_id(seed, stored, shown_id(seed + 1, stored[0]) + "x") is None
    assert stored_id(seed, stored, next(q for q in stored if q not in BANK.questions)) is None
