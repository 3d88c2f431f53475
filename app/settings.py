"""One typed Settings object, read from the environment (prefix PRECISION_LAB_) or a .env file."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from limits import parse_many
from pydantic import AliasChoices, Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.quiz.draw import DEFAULT_COUNT, MAX_COUNT
from app.quiz.signing import load_or_create_dev_key, private_key_from_text


class Settings(BaseSettings):
    # Errors never echo their input: it may hold the signing key or a database password.
    model_config = SettingsConfigDict(
        env_prefix="PRECISION_LAB_",
        env_file=".env",
        extra="ignore",
        validate_by_name=True,
        validate_by_alias=True,
        hide_input_in_errors=True,
    )

    environment: Literal["development", "test", "production"] = "development"
    debug: bool = False
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    # Training runs computed at once per worker process (further ones get 503 with Retry-After),
    # and finished runs kept to serve identical configurations again.
    train_max_concurrent_runs: int = Field(default=2, ge=1, le=64)
    train_cache_runs: int = Field(default=64, ge=0, le=4096)
    # Largest request body (413 beyond it) and query string (414). The body limit leaves room for the largest
    # POST /api/blocks/quantize: 65536 values of up to 24 characters each, about 1.7 MB as JSON.
    max_body_bytes: int = Field(default=2 * 1024 * 1024, ge=1024)
    max_query_bytes: int = Field(default=8192, ge=256)
    # SQLAlchemy URL; a plain DATABASE_URL (as hosting platforms set it) is honoured too.
    database_url: str = Field(
        default="sqlite:///precision_lab.db",
        validation_alias=AliasChoices("PRECISION_LAB_DATABASE_URL", "DATABASE_URL"),
    )
    # Ed25519 key that signs certificates: PEM, or the base64 of its 32-byte seed (`precision-lab keys --new`).
    signing_key: SecretStr | None = None
    # Where development keeps the key it generates on first run when signing_key is not set.
    signing_key_file: Path = Path("var/signing-key.pem")
    pass_mark: float = Field(default=0.8, gt=0, le=1)
    quiz_name: str = Field(default="Number formats and mixed precision", min_length=1, max_length=200)
    quiz_questions: int = Field(default=DEFAULT_COUNT, ge=1, le=MAX_COUNT)
    # Days a browser keeps the cookie that owns its quiz attempts.
    attempt_cookie_days: int = Field(default=30, ge=1, le=400)
    # Requests per client IP, in the `limits` notation ("30/minute", "100/hour;1000/day"), over a moving window:
    # starting attempts (page and API), and looking up certificates (certificate and verify pages, API, credential).
    rate_limit_attempts: str = "20/minute"
    rate_limit_verify: str = "60/minute"
    # Origin that certificate and credential URLs are built on.
    public_base_url: str = "http://127.0.0.1:8000"

    @field_validator("signing_key")
    @classmethod
    def _readable_signing_key(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            try:
                private_key_from_text(value.get_secret_value())
            except ValueError as error:
                raise ValueError(f"PRECISION_LAB_SIGNING_KEY: {error}") from None
        return value

    @field_validator("rate_limit_attempts", "rate_limit_verify")
    @classmethod
    def _rate_limit(cls, value: str, info: ValidationInfo) -> str:
        try:
            parse_many(value)
        except ValueError:
            setting = f"PRECISION_LAB_{str(info.field_name).upper()}"
            raise ValueError(f"{setting} takes limits such as 30/minute or 100/hour;1000/day.") from None
        return value

    @field_validator("public_base_url")
    @classmethod
    def _origin(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("PRECISION_LAB_PUBLIC_BASE_URL must start with http:// or https://.")
        return value.rstrip("/")

    @model_validator(mode="after")
    def _refuse_unsafe_production(self) -> Settings:
        if self.environment == "production" and self.debug:
            raise ValueError("PRECISION_LAB_DEBUG must be off when PRECISION_LAB_ENVIRONMENT is production.")
        if self.environment == "production" and self.signing_key is None:
            raise ValueError(
                "PRECISION_LAB_SIGNING_KEY must be set when PRECISION_LAB_ENVIRONMENT is production "
                "(`precision-lab keys --new` prints a fresh one)."
            )
        return self

    def load_signing_key(self) -> Ed25519PrivateKey:
        """The configured signing key, or else the development key kept in signing_key_file."""
        if self.signing_key is not None:
            return private_key_from_text(self.signing_key.get_secret_value())
        return load_or_create_dev_key(self.signing_key_file)


@lru_cache
def get_settings() -> Settings:
    return Settings()
