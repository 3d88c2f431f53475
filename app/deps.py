"""Annotated dependencies, so routes declare what they need and tests can override it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from fastapi import Depends, Request, params
from sqlalchemy.orm import Session

from app.quiz import Bank
from app.services.database import open_session
from app.services.training_runs import TrainRuns
from app.settings import Settings
from app.web.platform.csrf import api_owner_token
from app.web.platform.rate_limiting import Kind, count_request
from app.web.platform.rendering import wants_fragment


def app_settings(request: Request) -> Settings:
    """The settings create_app was given (kept on `app.state.settings`)."""
    settings: Settings = request.app.state.settings
    return settings


SettingsDep = Annotated[Settings, Depends(app_settings)]


def get_db(request: Request) -> Iterator[Session]:
    """A session on the engine that create_app put on `app.state.engine`, closed after the response."""
    with open_session(request.app.state.engine) as session:
        yield session


DbDep = Annotated[Session, Depends(get_db)]


def quiz_bank(request: Request) -> Bank:
    """The question bank, read and checked once at start-up."""
    bank: Bank = request.app.state.quiz_bank
    return bank


BankDep = Annotated[Bank, Depends(quiz_bank)]


def signing_key(request: Request) -> Ed25519PrivateKey:
    """The key that signs certificates and credentials, loaded at start-up."""
    key: Ed25519PrivateKey = request.app.state.signing_key
    return key


SigningKeyDep = Annotated[Ed25519PrivateKey, Depends(signing_key)]


def verification_keys(request: Request) -> list[Ed25519PublicKey]:
    """The public keys certificates are checked against and the JWKS publishes: the signing key's, then earlier ones."""
    keys: list[Ed25519PublicKey] = request.app.state.verification_keys
    return keys


VerificationKeysDep = Annotated[list[Ed25519PublicKey], Depends(verification_keys)]


HtmxDep = Annotated[bool, Depends(wants_fragment)]


def train_runs(request: Request) -> TrainRuns:
    """The app's training runs (made in the lifespan; a test may put its own in app.state.train_runs)."""
    runs: TrainRuns = request.app.state.train_runs
    return runs


RunsDep = Annotated[TrainRuns, Depends(train_runs)]

ApiTokenDep = Annotated[str, Depends(api_owner_token)]
"""The owner token a JSON API call sends in X-Attempt-Token."""


def rate_limited(kind: Kind) -> params.Depends:
    """A route dependency that counts the request against the `kind` limit."""

    def check(request: Request) -> None:
        count_request(request, kind)

    dependency: params.Depends = Depends(check)
    return dependency
