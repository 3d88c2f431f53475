"""The farming bot, measured: it learns every answer the feedback shows, by question id and by prompt, and uses
them in every later attempt. Written questions come back and it learns them all; generated ones are half of
each attempt, drawn from spaces of thousands and shown under ids that hide their parameters and change with
every attempt, so what it learned does not pass the 80 % mark."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.quiz import load_bank

ATTEMPTS = 40
GUESS = {"single": 0, "multiple": [0], "numeric": "1", "bits": "0x0"}



def phrased(question: dict, remembered: object) -> object:  # type: ignore[type-arg]
    """A remembered correct answer as the API takes it: choices by their index, anything else as it was shown."""
    if "choices" not in question:
        exact = re.search(r"exactly ([^;)]+)", str(remembered))  # "≈ 1.53e-5 (exactly 0.0000152587890625)"
        return exact.group(1) if exact else str(remembered).split()[0]  # without a note such as "(answers …)"
    texts = remembered if isinstance(remembered, list) else [remembered]
    picked = [question["choices"].index(text) for text in texts if text in question["choices"]]
    return (picked or [0])[0] if question["type"] == "single" else picked or [0]


@pytest.mark.slow  # takes 40 quiz attempts
def test_a_bot_that_memorises_the_feedback_learns_the_written_questions_and_still_does_not_pass(make_settings):
    app = create_app(make_settings(rate_limit_passes="1000/day", rate_limit_attempts="1000/minute"))
    by_id: dict[str, object] = {}
    by_prompt: dict[str, object] = {}
    passes, best, known_written = 0, 0, set()
    written = set(load_bank().questions)
    with TestClient(app) as client:
        for _ in range(ATTEMPTS):
            body = client.post("/api/quiz/attempts").json()
            owner = {"X-Attempt-Token": body["attempt_token"]}
            url = f"/api/quiz/attempts/{body['attempt_id']}"
            for question in body["questions"]:
                remembered = by_id.get(question["id"], by_prompt.get(question["prompt"]))
                # What it has not seen it answers with the first choice or a number: a guess, not knowledge.
                answer = GUESS[question["type"]] if remembered is None else phrased(question, remembered)
                feedback = client.post(f"{url}/answers", json={"question_id": question["id"], "answer": answer},
                                       headers=owner).json()
                assert "correct_answer" in feedback, (question, answer, feedback)
                by_id[question["id"]] = by_prompt[question["prompt"]] = feedback["correct_answer"]
                if question["id"] in written:
                    known_written.add(question["id"])
            result = client.post(f"{url}/finish", json={"name": "Bot"}, headers=owner).json()
            passes += bool(result["passed"])
            best = max(best, result["score"])
    print(f"farming bot: {passes} passes in {ATTEMPTS} attempts, best score {best}/12, "
          f"{len(known_written)} written questions learned")
    assert len(known_written) >= 60  # it did learn: most of the written bank came back to it
    # Its 6 written answers and guesses at the 6 generated ones (of thousands each) rarely reach 10 of 12: about
    # 1 attempt in 300 once it knows the whole written bank. Before, with a quarter generated, it passed most.
    assert passes <= ATTEMPTS // 10
