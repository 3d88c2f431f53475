"""`precision-lab migrate`, `certificates list|revoke` and `keys`, run against test databases."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Engine

from app.cli import main
from app.quiz.signing import certificate_signer, key_id, new_seed_text, private_key_from_text
from app.store.attempts import create_attempt, finish_attempt
from app.store.certificates import get_certificate
from app.store.database import create_database_engine, open_session


def _issue(engine: Engine, key: Ed25519PrivateKey, name: str) -> str:
    with open_session(engine) as session:
        attempt = create_attempt(session, seed=1, question_ids=["q1"], owner_token="token")
        issue = certificate_signer(key)
        finish_attempt(session, attempt, name=name, quiz="Quiz", result=lambda answers: (1, 1, True), issue=issue)
        assert attempt.certificate_id is not None
        return attempt.certificate_id


def _status(engine: Engine, certificate_id: str) -> tuple[str, str | None]:
    with open_session(engine) as session:
        certificate = get_certificate(session, certificate_id)
        assert certificate is not None
        return certificate.status, certificate.revoked_reason


def _run(*argv: str, cwd: Path, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The command as a person runs it: a fresh process with only the settings given here."""
    clean = {name: value for name, value in os.environ.items() if not name.startswith("PRECISION_LAB_")}
    clean.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *argv],
        cwd=cwd,
        env={**clean, **environment},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_migrate_creates_the_schema(database_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", "--database-url", database_url]) == 0
    assert "newest revision" in capsys.readouterr().out
    engine = create_database_engine(database_url)
    try:
        with open_session(engine) as session:
            assert get_certificate(session, "0000-0000-0000-0000-0") is None
    finally:
        engine.dispose()


def test_list_prints_one_line_per_certificate(
    engine: Engine, database_url: str, signing_key: Ed25519PrivateKey, capsys: pytest.CaptureFixture[str]
) -> None:
    ada, grace = _issue(engine, signing_key, "Ada"), _issue(engine, signing_key, "Grace")
    assert main(["certificates", "list", "--database-url", database_url]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(line.split("\t")[0] for line in lines) == sorted([ada, grace])
    assert all(line.split("\t")[2:5] in (["valid", "1/1", "Ada"], ["valid", "1/1", "Grace"]) for line in lines)


def test_revoke_accepts_a_forgiving_id_and_list_shows_it(
    engine: Engine, database_url: str, signing_key: Ed25519PrivateKey, capsys: pytest.CaptureFixture[str]
) -> None:
    certificate_id = _issue(engine, signing_key, "Ada")
    typed = certificate_id.replace("-", "").lower()
    assert main(["certificates", "revoke", typed, "--reason", "Shared answers.", "--database-url", database_url]) == 0
    assert f"{certificate_id} revoked" in capsys.readouterr().out
    assert _status(engine, certificate_id) == ("revoked", "Shared answers.")
    assert main(["certificates", "list", "--status", "revoked", "--database-url", database_url]) == 0
    assert capsys.readouterr().out.startswith(certificate_id)


def test_revoke_reports_unknown_and_malformed_ids(
    engine: Engine, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    revoke = ["certificates", "revoke", "--reason", "x", "--database-url", database_url]
    assert main([*revoke, "0000-0000-0000-0000-0"]) == 1
    assert "no certificate has the ID 0000-0000-0000-0000-0" in capsys.readouterr().err
    assert main([*revoke, "0000-0000-0000-0000-1"]) == 2
    assert "check symbol" in capsys.readouterr().err


def test_revoke_needs_a_reason() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["certificates", "revoke", "0000-0000-0000-0000-0"])
    assert exit_info.value.code == 2


@pytest.mark.slow  # two fresh Python processes that import the app
def test_the_command_runs_as_a_program(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert _run("migrate", cwd=tmp_path, environment={"DATABASE_URL": url}).returncode == 0
    listed = _run("certificates", "list", cwd=tmp_path, environment={"PRECISION_LAB_DATABASE_URL": url})
    assert (listed.returncode, listed.stdout, listed.stderr) == (0, "", "")


def test_keys_prints_the_jwks_of_the_configured_key(tmp_path: Path) -> None:
    seed = new_seed_text()
    printed = _run("keys", cwd=tmp_path, environment={"PRECISION_LAB_SIGNING_KEY": seed})
    assert printed.returncode == 0, printed.stderr
    (jwk,) = json.loads(printed.stdout)["keys"]
    assert jwk["kid"] == f"http://127.0.0.1:8000/.well-known/jwks/{key_id(private_key_from_text(seed).public_key())}.json"
    assert "d" not in jwk and not (tmp_path / "var").exists()


@pytest.mark.slow  # two fresh Python processes that import the app
def test_keys_prints_the_previous_public_keys_after_the_current_one(tmp_path: Path) -> None:
    """The `x` printed for a key is what PRECISION_LAB_PREVIOUS_PUBLIC_KEYS takes after a rotation."""
    old, new = new_seed_text(), new_seed_text()
    (old_jwk,) = json.loads(_run("keys", cwd=tmp_path, environment={"PRECISION_LAB_SIGNING_KEY": old}).stdout)["keys"]
    rotated = _run("keys", cwd=tmp_path, environment={
        "PRECISION_LAB_SIGNING_KEY": new, "PRECISION_LAB_PREVIOUS_PUBLIC_KEYS": old_jwk["x"],
    })
    assert rotated.returncode == 0, rotated.stderr
    current, previous = json.loads(rotated.stdout)["keys"]
    assert current["kid"].endswith(f"/{key_id(private_key_from_text(new).public_key())}.json") and previous == old_jwk


@pytest.mark.slow  # two fresh Python processes that import the app
def test_keys_makes_and_keeps_the_development_key(tmp_path: Path) -> None:
    first = _run("keys", cwd=tmp_path, environment={"PRECISION_LAB_ENVIRONMENT": "development"})
    assert first.returncode == 0, first.stderr
    key_file = tmp_path / "var" / "signing-key.pem"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert _run("keys", cwd=tmp_path, environment={}).stdout == first.stdout


def test_keys_new_prints_a_fresh_seed_even_before_production_has_one(tmp_path: Path) -> None:
    printed = _run("keys", "--new", cwd=tmp_path, environment={"PRECISION_LAB_ENVIRONMENT": "production"})
    assert len(base64.b64decode(printed.stdout.strip(), validate=True)) == 32


def test_production_refuses_to_start_without_a_signing_key(tmp_path: Path) -> None:
    refused = _run("keys", cwd=tmp_path, environment={"PRECISION_LAB_ENVIRONMENT": "production"})
    assert refused.returncode != 0 and "PRECISION_LAB_SIGNING_KEY" in refused.stderr
