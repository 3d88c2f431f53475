"""One typed Settings object, read from the environment (prefix PRECISION_LAB_) or a .env file."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from limits import parse_many
from pydantic import AliasChoices, Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.production_checks import default_password, guessable_seed, plain_http_off_loopback, weak_redis_password
from app.quiz import DEFAULT_COUNT, MAX_COUNT, load_or_create_dev_key, private_key_from_text, public_key_from_text

_MOST_TRAIN_PROCESSES = 64


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
    # Addresses whose X-Forwarded-For and X-Forwarded-Proto are believed (uvicorn's --forwarded-allow-ips):
    # the reverse proxy's, so that the per-client rate limits and the logs see the real client address.
    forwarded_allow_ips: str = "127.0.0.1"
    # `precision-lab serve` logs one JSON object a line (for a log collector), or text for a person.
    log_format: Literal["json", "text"] = "json"
    # Training runs computed at once per worker process (further ones get 503 with Retry-After),
    # and finished runs kept to serve identical configurations again.
    train_max_concurrent_runs: int = Field(default=2, ge=1, le=64)
    # Processes that compute the training runs, per server process (each of `workers`), so that runs and web
    # requests never wait for one interpreter lock: unset, one per training slot; with fewer, a run beyond them
    # waits (within train_max_seconds) for one to be free. Each starts when first needed.
    train_processes: int | None = None
    train_cache_runs: int = Field(default=64, ge=0, le=4096)
    # Seconds a run may take before it is stopped and refused (503), a safety net: within the lab's limits a run
    # takes seconds, so one this slow means an overloaded process.
    train_max_seconds: float = Field(default=60, ge=0, le=3600)
    # Seconds a streamed run waits for its client to take the next frames: a client that stops reading loses its
    # run, and the run's slot goes back to the others, as it does at train_max_seconds whatever the client does.
    train_send_timeout: float = Field(default=10, gt=0, le=600)
    # Largest request body (413 beyond it) and query string (414). The body limit leaves room for the largest
    # POST /api/blocks/quantize: 16384 values of up to 24 characters each, about 420 KB as JSON.
    max_body_bytes: int = Field(default=512 * 1024, ge=1024)
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
    # Public keys of earlier signing keys, comma-separated (each the `x` of its JWK, as `precision-lab keys` prints
    # it, or PEM): certificates they signed still verify after a rotation, and the JWKS publishes them.
    previous_public_keys: str = ""
    pass_mark: float = Field(default=0.8, gt=0, le=1)
    quiz_name: str = Field(default="Number formats and mixed precision", min_length=1, max_length=200)
    quiz_questions: int = Field(default=DEFAULT_COUNT, ge=1, le=MAX_COUNT)
    # Days a browser keeps the cookie that owns its quiz attempts.
    attempt_cookie_days: int = Field(default=30, ge=1, le=400)
    # Requests per client IP, in the `limits` notation ("30/minute", "100/hour;1000/day"), over a moving window:
    # starting attempts (page and API), looking up certificates (certificate and verify pages, API, credential),
    # and starting training runs (POST /api/train, the page's live stream, the page's run=1 results).
    rate_limit_attempts: str = "20/minute"
    rate_limit_verify: str = "60/minute"
    rate_limit_train: str = "30/minute"
    # Certificates earned (passed attempts finished) per client: a bot that learns the answers from the feedback
    # then earns no more of them a day than a person does.
    rate_limit_passes: str = "10/day"
    # Accumulation figures (page and API): up to a million values summed four ways, about half a second of CPU
    # each when it is not cached.
    rate_limit_sums: str = "30/minute"
    # Clients counted as one: IPv6 addresses by this prefix (one /64 is one subscriber's network, and holds 2^64
    # addresses to hop between), IPv4 addresses one by one.
    rate_limit_ipv6_prefix: int = Field(default=64, ge=1, le=128)
    # Where the rate-limit counters live, shared by every worker and instance: Redis when this is set (a plain
    # REDIS_URL is honoured too), otherwise a table in the database above.
    redis_url: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("PRECISION_LAB_REDIS_URL", "REDIS_URL")
    )
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

    @field_validator("previous_public_keys")
    @classmethod
    def _readable_public_keys(cls, value: str) -> str:
        for number, text in enumerate(_listed(value), start=1):
            try:
                public_key_from_text(text)
            except ValueError as error:
                raise ValueError(f"PRECISION_LAB_PREVIOUS_PUBLIC_KEYS, key {number}: {error}") from None
        return value

    @field_validator("rate_limit_attempts", "rate_limit_verify", "rate_limit_train", "rate_limit_passes",
                     "rate_limit_sums")
    @classmethod
    def _rate_limit(cls, value: str, info: ValidationInfo) -> str:
        try:
            parse_many(value)
        except ValueError:
            setting = f"PRECISION_LAB_{str(info.field_name).upper()}"
            raise ValueError(f"{setting} takes limits such as 30/minute or 100/hour;1000/day.") from None
        return value

    @field_validator("train_processes")
    @classmethod
    def _train_processes(cls, value: int | None) -> int | None:
        if value is not None and not 1 <= value <= _MOST_TRAIN_PROCESSES:
            raise ValueError(f"PRECISION_LAB_TRAIN_PROCESSES must be from 1 to {_MOST_TRAIN_PROCESSES}, "
                             "or unset for one process per training slot.")
        return value

    @model_validator(mode="after")
    def _train_processes_within_slots(self) -> Settings:
        if self.train_processes is not None and self.train_processes > self.train_max_concurrent_runs:
            raise ValueError(
                f"PRECISION_LAB_TRAIN_PROCESSES ({self.train_processes}) is more than "
                f"PRECISION_LAB_TRAIN_MAX_CONCURRENT_RUNS ({self.train_max_concurrent_runs}), the runs trained at "
                "once, so some processes would never train; lower it, or leave it unset for one per slot."
            )
        return self

    @field_validator("redis_url")
    @classmethod
    def _redis_scheme(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("PRECISION_LAB_REDIS_URL must start with redis://, rediss:// or unix://.")
        return value

    @field_validator("public_base_url")
    @classmethod
    def _origin(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("PRECISION_LAB_PUBLIC_BASE_URL must start with http:// or https://.")
        return value.rstrip("/")

    @model_validator(mode="after")
    def _refuse_unsafe_production(self) -> Settings:
        # Each sentence names the variable and the fix, never the value: it may be a key or a password.
        if self.environment != "production":
            return self
        if self.debug:
            raise ValueError("PRECISION_LAB_DEBUG must be off when PRECISION_LAB_ENVIRONMENT is production.")
        if self.signing_key is None:
            raise ValueError(
                "PRECISION_LAB_SIGNING_KEY must be set when PRECISION_LAB_ENVIRONMENT is production "
                "(`precision-lab keys --new` prints a fresh one)."
            )
        if guessable_seed(self.signing_key.get_secret_value()):
            raise ValueError(
                "PRECISION_LAB_SIGNING_KEY is a published example or a non-random key, so anyone could sign "
                "certificates with it; set a fresh one from `precision-lab keys --new`."
            )
        if default_password(self.database_url):
            raise ValueError(
                "PRECISION_LAB_DATABASE_URL (or DATABASE_URL) has an empty, well-known or user-name password; "
                "give the database role a long random one (`openssl rand -hex 24`) and put it in the URL."
            )
        if self.redis_url is not None and weak_redis_password(self.redis_url.get_secret_value()):
            raise ValueError(
                "PRECISION_LAB_REDIS_URL (or REDIS_URL) has no password, or an empty, well-known or user-name one; "
                "set a long random one on the Redis server (requirepass or an ACL user) and put it in the URL "
                "(a unix:// socket, guarded by its file permissions, may go without)."
            )
        if "*" in _listed(self.forwarded_allow_ips):
            raise ValueError(
                "PRECISION_LAB_FORWARDED_ALLOW_IPS must not be * in production: anyone could then set the client "
                "address that rate limits count and the scheme that links are built on; list the reverse proxy's "
                "addresses instead."
            )
        if plain_http_off_loopback(self.public_base_url):
            raise ValueError(
                "PRECISION_LAB_PUBLIC_BASE_URL must be an https:// origin in production: certificates carry "
                "verification links built on it; terminate TLS at the reverse proxy and set its https:// origin."
            )
        return self

    def load_signing_key(self) -> Ed25519PrivateKey:
        """The configured signing key, or else the development key kept in signing_key_file."""
        if self.signing_key is not None:
            return private_key_from_text(self.signing_key.get_secret_value())
        return load_or_create_dev_key(self.signing_key_file)

    def load_previous_public_keys(self) -> list[Ed25519PublicKey]:
        """The public keys of earlier signing keys, which certificates may still carry signatures of."""
        return [public_key_from_text(text) for text in _listed(self.previous_public_keys)]


def _listed(value: str) -> list[str]:
    """The items of a comma-separated setting; a PEM block (which has no commas) is one item."""
    return [item.strip() for item in value.split(",") if item.strip()]


@lru_cache
def get_settings() -> Settings:
    return Settings()
