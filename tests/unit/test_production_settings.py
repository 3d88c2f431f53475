"""Production refuses unsafe settings with a sentence that names the variable and never echoes the secret."""

from __future__ import annotations

import base64
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pydantic import SecretStr, ValidationError

from app.quiz.signing import new_seed_text
from app.settings import Settings

# RFC 8032, section 7.1, TEST 1: the example key every Ed25519 tutorial copies (RFC 8037 prints it too).
RFC8032_TEST1_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")


@pytest.fixture(autouse=True)
def _only_the_settings_given_here(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # away from any .env file
    for name in list(os.environ):
        if name.startswith("PRECISION_LAB_") or name in ("DATABASE_URL", "REDIS_URL"):
            monkeypatch.delenv(name)


def _strong_password() -> str:
    return secrets.token_hex(16)


def _production(**overrides: Any) -> Settings:
    """A production configuration an operator would write, with overrides."""
    given: dict[str, Any] = {
        "environment": "production",
        "signing_key": SecretStr(new_seed_text()),
        "database_url": f"postgresql+psycopg://precision_lab:{_strong_password()}@db.internal:5432/precision_lab",
        "public_base_url": "https://lab.example.org",
        **overrides,
    }
    return Settings(**given)


def _refusal(**overrides: Any) -> str:
    with pytest.raises(ValidationError) as refused:
        _production(**overrides)
    return str(refused.value)


def _seed_text(seed: bytes) -> str:
    return base64.b64encode(seed).decode("ascii")


def _pem_text(seed: bytes) -> str:
    key = Ed25519PrivateKey.from_private_bytes(seed)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")


def test_a_sound_production_configuration_is_accepted() -> None:
    settings = _production()
    assert settings.environment == "production"
    assert settings.public_base_url == "https://lab.example.org"


def test_a_sound_production_configuration_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRECISION_LAB_ENVIRONMENT", "production")
    monkeypatch.setenv("PRECISION_LAB_SIGNING_KEY", new_seed_text())
    monkeypatch.setenv("DATABASE_URL", f"postgres://lab:{_strong_password()}@db.internal/lab")
    monkeypatch.setenv("PRECISION_LAB_PUBLIC_BASE_URL", "https://lab.example.org/")
    assert Settings().public_base_url == "https://lab.example.org"


def test_debug_is_refused() -> None:
    assert "PRECISION_LAB_DEBUG must be off" in _refusal(debug=True)


def test_a_missing_signing_key_is_refused() -> None:
    assert "PRECISION_LAB_SIGNING_KEY must be set" in _refusal(signing_key=None)


@pytest.mark.parametrize(
    "key_text",
    [
        _seed_text(RFC8032_TEST1_SEED),
        base64.urlsafe_b64encode(RFC8032_TEST1_SEED).decode("ascii").rstrip("="),
        _pem_text(RFC8032_TEST1_SEED),
        _seed_text(bytes.fromhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")),  # TEST 2
        _seed_text(bytes(32)),
        _seed_text(b"A" * 32),
        _pem_text(b"\x01" * 32),
        _seed_text(b"secret" * 5 + b"!!"),
        _seed_text(bytes(range(32))),
        _seed_text(bytes(range(255, 223, -1))),
        _pem_text(b"correct horse battery staple, ok"),
        _seed_text(bytes.fromhex("8f3a91c2d4e5f60718293a4b5c6d7e8f") * 2),
    ],
    ids=["rfc8032-base64", "rfc8032-base64url", "rfc8032-pem", "rfc8032-test2", "zeros", "letter-a", "ones-pem",
         "repeated-word", "bytes-0-to-31", "counting-down", "ascii-text-pem", "repeated-16-bytes"],
)
def test_a_published_or_non_random_signing_key_is_refused_without_echoing_it(key_text: str) -> None:
    message = _refusal(signing_key=SecretStr(key_text))
    assert "PRECISION_LAB_SIGNING_KEY is a published example or a non-random key" in message
    assert "precision-lab keys --new" in message
    assert key_text.strip() not in message
    assert "PRIVATE KEY" not in message


def test_those_keys_still_work_in_development_and_tests() -> None:
    for environment in ("development", "test"):
        settings = Settings(environment=environment, signing_key=SecretStr(_seed_text(RFC8032_TEST1_SEED)))
        assert settings.load_signing_key().private_bytes_raw() == RFC8032_TEST1_SEED


@pytest.mark.parametrize(
    ("url", "password"),
    [
        ("postgresql+psycopg://precision_lab:postgres@db.internal/precision_lab", "postgres"),
        ("postgresql://precision_lab:password@db.internal/precision_lab", "password"),
        ("postgres://precision_lab:ChangeMe@db.internal:5432/precision_lab", "ChangeMe"),
        ("postgresql://lab:secret@db.internal/lab", "secret"),
        ("postgresql://lab:precision_lab@db.internal/lab", "precision_lab"),
        ("postgresql://lab:p%40ss@db.internal/lab", "p%40ss"),
        ("postgresql://lab:@db.internal/lab", ""),
        ("postgresql://labuser:labuser@db.internal/lab", "labuser"),
    ],
    ids=["postgres", "password", "changeme-any-case", "secret", "project-name", "percent-encoded", "empty",
         "user-name"],
)
def test_a_default_database_password_is_refused_without_echoing_it(url: str, password: str) -> None:
    message = _refusal(database_url=url)
    assert "PRECISION_LAB_DATABASE_URL (or DATABASE_URL) has an empty, well-known or user-name password" in message
    assert url not in message
    assert "db.internal" not in message
    if password:
        assert f":{password}@" not in message


@pytest.mark.parametrize("url", [
    "postgresql://lab@db.internal/lab?password=postgres",
    "postgresql://lab@db.internal/lab?sslmode=require&password=",
    "postgresql://lab:{strong}@db.internal/lab?password=changeme",
])
def test_a_default_password_in_the_query_is_refused(url: str) -> None:
    message = _refusal(database_url=url.format(strong=_strong_password()))
    assert "PRECISION_LAB_DATABASE_URL (or DATABASE_URL) has an empty, well-known or user-name password" in message
    assert "db.internal" not in message


def test_a_strong_password_in_the_query_is_accepted() -> None:
    url = f"postgresql://lab@db.internal/lab?password={_strong_password()}"
    assert _production(database_url=url).database_url == url


def test_a_default_password_given_as_database_url_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://lab:postgres@db.internal/lab")
    with pytest.raises(ValidationError, match="DATABASE_URL"):
        Settings(environment="production", signing_key=SecretStr(new_seed_text()),
                 public_base_url="https://lab.example.org")


@pytest.mark.parametrize(
    "url",
    [
        # Peer, certificate or .pgpass authentication keeps the password out of the URL.
        "postgresql+psycopg://precision_lab@db.internal/precision_lab",
        "postgresql+psycopg:///precision_lab?host=/run/postgresql",
        # One machine: SQLite in WAL mode serves every worker process there (see docs/deployment.md).
        "sqlite:////var/lib/precision-lab/precision_lab.db",
    ],
)
def test_urls_without_a_password_are_accepted(url: str) -> None:
    assert _production(database_url=url, workers=4).database_url == url


@pytest.mark.parametrize(
    "url", ["redis://:foobared@cache.internal:6379/0", "rediss://default:default@cache.internal:6380/0",
            "redis://:@cache.internal:6379/0", "redis://lab:Password@cache.internal:6379/0",
            "redis://cache.internal:6379/0", "rediss://cache.internal:6380/0?ssl_cert_reqs=required",
            "redis://cache.internal:6379/0?password=foobared"],
    ids=["foobared", "default", "empty", "any-case", "none", "none-over-tls", "default-in-query"],
)
def test_a_missing_or_default_redis_password_is_refused_without_echoing_it(url: str) -> None:
    message = _refusal(redis_url=SecretStr(url))
    assert "PRECISION_LAB_REDIS_URL (or REDIS_URL) has no password, or an empty, well-known or user-name one" \
        in message
    assert "cache.internal" not in message


@pytest.mark.parametrize(
    "url", ["rediss://lab:{password}@cache.internal:6380/0", "redis://cache.internal:6379/0?password={password}",
            "unix:///run/redis/redis.sock?db=0"],
    ids=["strong-password", "strong-password-in-query", "unix-socket"],
)
def test_redis_without_a_default_password_is_accepted(url: str) -> None:
    given = SecretStr(url.format(password=_strong_password()))
    assert _production(redis_url=given).redis_url == given


@pytest.mark.parametrize("proxies", ["*", "10.0.0.2, *"])
def test_trusting_proxy_headers_from_anyone_is_refused(proxies: str) -> None:
    message = _refusal(forwarded_allow_ips=proxies)
    assert "PRECISION_LAB_FORWARDED_ALLOW_IPS must not be * in production" in message


def test_trusting_the_listed_proxies_is_accepted() -> None:
    assert _production(forwarded_allow_ips="10.0.0.2,10.0.0.3").forwarded_allow_ips == "10.0.0.2,10.0.0.3"


@pytest.mark.parametrize("origin", ["http://lab.example.org", "http://203.0.113.7:8000", "http://[2001:db8::1]"])
def test_a_plain_http_public_origin_is_refused(origin: str) -> None:
    message = _refusal(public_base_url=origin)
    assert "PRECISION_LAB_PUBLIC_BASE_URL must be an https:// origin in production" in message


@pytest.mark.parametrize(
    "origin", ["https://lab.example.org", "http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"]
)
def test_https_and_loopback_origins_are_accepted(origin: str) -> None:
    assert _production(public_base_url=origin).public_base_url == origin


def test_every_unsafe_value_is_fine_outside_production() -> None:
    settings = Settings(
        environment="development",
        debug=True,
        signing_key=SecretStr(_seed_text(bytes(32))),
        database_url="postgresql://postgres:postgres@db.internal/lab",
        redis_url=SecretStr("redis://:foobared@cache.internal:6379/0"),
        public_base_url="http://lab.example.org",
    )
    assert settings.debug


@pytest.mark.slow  # a fresh Python process that imports the app
def test_serve_stops_with_the_sentence_not_a_traceback(tmp_path: Path) -> None:
    password = "postgres"
    clean = {name: value for name, value in os.environ.items() if not name.startswith("PRECISION_LAB_")}
    clean.pop("DATABASE_URL", None)
    clean.pop("REDIS_URL", None)
    environment = {
        **clean,
        "PRECISION_LAB_ENVIRONMENT": "production",
        "PRECISION_LAB_SIGNING_KEY": new_seed_text(),
        "PRECISION_LAB_PUBLIC_BASE_URL": "https://lab.example.org",
        "DATABASE_URL": f"postgresql://precision_lab:{password}@db.internal/precision_lab",
    }
    refused = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--port", "1"],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120, check=False,
    )
    assert refused.returncode == 2
    assert "PRECISION_LAB_DATABASE_URL (or DATABASE_URL) has an empty, well-known or user-name password" in (
        refused.stderr
    )
    assert "Traceback" not in refused.stderr
    assert f":{password}@" not in refused.stderr and environment["PRECISION_LAB_SIGNING_KEY"] not in refused.stderr


@pytest.mark.slow  # checks 20,000 fresh keys
def test_fresh_random_keys_are_never_taken_for_patterned_ones() -> None:
    from app.production_checks import guessable_seed

    assert not any(guessable_seed(new_seed_text()) for _ in range(20000))
