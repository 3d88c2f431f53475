"""The tables: quiz attempts, their answers, the certificates of passed attempts, and rate-limit counters."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, CheckConstraint, DateTime, ForeignKey, MetaData, String, Text, UniqueConstraint
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import Double, TypeDecorator

NAME_MAX_LENGTH = 200  # characters of the name printed on a certificate


class UTCDateTime(TypeDecorator[datetime]):
    """An aware UTC datetime on every backend; SQLite keeps no time zone, so it stores naive UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("a stored datetime must be timezone-aware")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    # Named constraints, so that later migrations can alter them (SQLite's batch mode needs the names).
    metadata = MetaData(
        naming_convention={
            "pk": "pk_%(table_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "uq": "uq_%(table_name)s_%(column_0_N_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "ix": "ix_%(column_0_label)s",
        }
    )


class Attempt(Base):
    __tablename__ = "attempts"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    seed: Mapped[int] = mapped_column(BigInteger)
    question_ids: Mapped[list[str]] = mapped_column(JSON)
    # sha256 hex of the browser token that started the attempt: the token itself is never stored.
    owner_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    score: Mapped[int | None]
    total: Mapped[int | None]
    passed: Mapped[bool | None]
    # The language the attempt was taken in (a served language's code), which its certificate speaks.
    language: Mapped[str] = mapped_column(String(8), default="en", server_default="en")

    answers: Mapped[list[Answer]] = relationship(
        back_populates="attempt", order_by="Answer.answered_at", cascade="all, delete-orphan"
    )
    certificate: Mapped[Certificate | None] = relationship(back_populates="attempt")

    @property
    def certificate_id(self) -> str | None:
        """The id of the certificate this attempt earned, if it did."""
        return self.certificate.id if self.certificate else None


class Answer(Base):
    __tablename__ = "answers"
    # One answer per question, enforced by the database so that two racing requests cannot both answer.
    __table_args__ = (UniqueConstraint("attempt_id", "question_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    attempt_id: Mapped[str] = mapped_column(ForeignKey("attempts.id", ondelete="CASCADE"))
    question_id: Mapped[str] = mapped_column(String(120))
    answer: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool]
    answered_at: Mapped[datetime] = mapped_column(UTCDateTime)

    attempt: Mapped[Attempt] = relationship(back_populates="answers")


class Certificate(Base):
    __tablename__ = "certificates"
    __table_args__ = (CheckConstraint("status IN ('valid', 'revoked')", name="status"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    attempt_id: Mapped[str] = mapped_column(ForeignKey("attempts.id"), unique=True)
    name: Mapped[str] = mapped_column(String(NAME_MAX_LENGTH))
    quiz: Mapped[str] = mapped_column(String(200))
    score: Mapped[int]
    total: Mapped[int]
    issued_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    status: Mapped[str] = mapped_column(String(16), default="valid")
    revoked_reason: Mapped[str | None] = mapped_column(Text)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    signature: Mapped[str] = mapped_column(String(128))
    key_id: Mapped[str] = mapped_column(String(64))
    # The certificate's bit in the published revocation lists (app.quiz.status_list), drawn at random.
    status_index: Mapped[int] = mapped_column(unique=True)

    attempt: Mapped[Attempt] = relationship(back_populates="certificate")


class RateLimitCounter(Base):
    """The recent hits of one client on one limit (app/store/rate_limits.py), shared by every instance."""

    __tablename__ = "rate_limit_counters"

    # The `limits` key: limit, kind and client, e.g. LIMITER/train/203.0.113.7/30/1/minute.
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    # Seconds since the epoch of each hit still in the window, newest first; at most the limit's amount of them.
    hits: Mapped[list[float]] = mapped_column(JSON)
    # When the newest hit leaves the window: after it the row counts for nothing, and old rows are deleted by it.
    expires_at: Mapped[float] = mapped_column(Double, index=True)
