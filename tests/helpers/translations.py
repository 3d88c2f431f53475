"""The translated texts of a language beside their English, for the tests that read every one of them: each form of
each catalog entry, and each translated text of the quiz bank."""

from __future__ import annotations

from babel.messages.pofile import read_po

from app.quiz.bank import BANK_DIR, topic_blocks
from app.quiz.bank_translations import KEPT
from app.web.platform.catalogs import catalog_path


def catalog_pairs(code: str) -> list[tuple[str, str, str]]:
    """(where, English, translation) for every form of every catalog entry."""
    with catalog_path(code).open("rb") as source:
        catalog = read_po(source, locale=code)
    pairs = []
    for message in catalog:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        for index, string in enumerate(strings):
            pairs.append((f"catalog {message.id!r}", ids[min(index, len(ids) - 1)], string))
    return pairs


def bank_pairs(code: str) -> list[tuple[str, str, str]]:
    """(where, English, translation) for every translated text of the language's quiz bank."""
    pairs = []
    for path in sorted((BANK_DIR / code).glob("*.txt")):
        english = {_id(block): block for block in topic_blocks(BANK_DIR / path.name, path.name)[1:]}
        translated = topic_blocks(path, f"{code}/{path.name}")
        english_title = topic_blocks(BANK_DIR / path.name, path.name)[0][0].value
        pairs.append((f"{code}/{path.name} title", english_title, translated[0][0].value))
        for block in translated[1:]:
            question = _id(block)
            texts = [f for f in block if f.key not in KEPT and f.key != "id"]
            originals = [f for f in english[question] if f.key not in KEPT and f.key != "id"]
            for field, original in zip(texts, originals, strict=True):
                pairs.append((f"{code}/{path.name} {question} {field.key} (line {field.line})", original.value,
                              field.value))
    return pairs


def _id(block) -> str:
    return next(field.value for field in block if field.key == "id")
