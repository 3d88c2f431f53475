"""The `precision-lab` command: serve the app, migrate its database, certificates and keys, benchmarks, hardware."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import uvicorn
from pydantic import ValidationError
from sqlalchemy import make_url

from app.hardware import DEFAULT_SIZES, MEASURED_DIR, default_device, device_slug, measure
from app.quiz import InvalidCertificateId, jwks, new_seed_text, normalise_certificate_id
from app.settings import get_settings
from app.store.certificates import UnknownCertificate, list_certificates, revoke_certificate
from app.store.database import create_database_engine, migrate, open_session

_SOURCE_ROOT = Path(__file__).resolve().parents[1]
# uvicorn kills a worker that does not answer its supervisor in time, 5 s by default; a new worker answers only
# once it has imported the app (numpy, SQLAlchemy, ...), which on a busy machine takes longer than that.
_WORKER_HEALTHCHECK_SECONDS = 30


def _serve(args: argparse.Namespace) -> int:
    settings = get_settings()
    workers = settings.workers if args.workers is None else args.workers
    if workers < 1:
        print(f"precision-lab serve: --workers (or PRECISION_LAB_WORKERS) must be at least 1, not {workers}.",
              file=sys.stderr)
        return 2
    host = settings.host if args.host is None else args.host
    port = settings.port if args.port is None else args.port
    if "public_base_url" not in settings.model_fields_set:
        # Links (embed snippets, oEmbed, certificates) then point where this server listens, on any port.
        os.environ["PRECISION_LAB_PUBLIC_BASE_URL"] = served_origin(host, port)
        get_settings.cache_clear()
    with _metrics_directory(workers):
        # Imported only now: prometheus_client opens this process's files in the directory as the metrics are
        # made, and they must not be the ones just emptied. Each worker reads the settings from the environment.
        from app.web.platform.request_log import log_config

        uvicorn.run(
            "app.main:app",
            host=host,
            port=port,
            workers=workers,
            proxy_headers=True,
            forwarded_allow_ips=settings.forwarded_allow_ips,
            log_config=log_config(settings.log_format),
            access_log=False,
            timeout_worker_healthcheck=_WORKER_HEALTHCHECK_SECONDS,
        )
    return 0


def served_origin(host: str, port: int) -> str:
    """The http origin a browser on this machine reaches a server listening on host:port at."""
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"  # every address: this machine's own is one of them
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


@contextmanager
def _metrics_directory(workers: int) -> Iterator[None]:
    """Where the worker processes keep their metrics for /metrics to add up: PROMETHEUS_MULTIPROC_DIR.

    A directory given in the environment is emptied of the last run's files (prometheus_client asks for that);
    otherwise several workers get a fresh temporary one, removed afterwards, and one worker needs none.
    """
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if given:
        directory = Path(given)
        directory.mkdir(parents=True, exist_ok=True)
        for stale in directory.glob("*.db"):
            stale.unlink()
        yield
        return
    if workers == 1:
        yield
        return
    with tempfile.TemporaryDirectory(prefix="precision-lab-metrics-") as made:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = made  # before uvicorn spawns the workers, which inherit it
        try:
            yield
        finally:
            del os.environ["PROMETHEUS_MULTIPROC_DIR"]


def _bench(args: argparse.Namespace) -> int:
    if not (_SOURCE_ROOT / "bench" / "__main__.py").is_file():
        print("precision-lab bench: the benchmarks live in bench/ of a source checkout.", file=sys.stderr)
        return 2
    # The benchmarks are not installed with the package, so they are imported from the checkout.
    sys.path.insert(0, str(_SOURCE_ROOT))
    runner = importlib.import_module("bench.__main__")
    return int(runner.main(args.names))


def _hardware_bench(args: argparse.Namespace) -> int:
    with_torch = not args.no_torch and find_spec("torch") is not None
    device = args.device or (default_device() if with_torch else "cpu")
    if device == "cuda" and not (with_torch and default_device() == "cuda"):
        print("precision-lab hardware-bench: --device cuda needs torch (pip install -e '.[torch]') and a GPU "
              "that torch sees.", file=sys.stderr)
        return 2
    result = measure(device, tuple(args.size) or DEFAULT_SIZES[device], with_torch)
    out = args.out or MEASURED_DIR / f"{device_slug(result['device'], device)}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for row in result["results"]:
        print(f"{row['library']:6} {row['label']:9} {row['size']:6}  {row['tflops']:10.3f} TFLOP/s")
    for row in result["skipped"]:
        print(f"{row['library']:6} {row['format']:9} {row['size']:6}  skipped: {row['reason']}")
    print(f"wrote {out} ({result['device']})")
    return 0


def _matrix_size(text: str) -> int:
    size = int(text)
    if not 1 <= size <= 65536:
        raise argparse.ArgumentTypeError(f"{size} is not a matrix size from 1 to 65536")
    return size


def _database_url(args: argparse.Namespace) -> str:
    return str(args.database_url or get_settings().database_url)


def _migrate(args: argparse.Namespace) -> int:
    url = _database_url(args)
    migrate(url)
    print(f"{make_url(url).render_as_string()}: schema at the newest revision.")
    return 0


def _list_certificates(args: argparse.Namespace) -> int:
    engine = create_database_engine(_database_url(args))
    with open_session(engine) as session:
        for certificate in list_certificates(session, args.status):
            issued = certificate.issued_at.date().isoformat()
            score = f"{certificate.score}/{certificate.total}"
            print("\t".join([certificate.id, issued, certificate.status, score, certificate.name, certificate.quiz]))
    engine.dispose()
    return 0


def _revoke_certificate(args: argparse.Namespace) -> int:
    try:
        certificate_id = normalise_certificate_id(args.id)
    except InvalidCertificateId as error:
        print(f"precision-lab certificates revoke: {error}", file=sys.stderr)
        return 2
    engine = create_database_engine(_database_url(args))
    try:
        with open_session(engine) as session:
            certificate = revoke_certificate(session, certificate_id, args.reason)
    except UnknownCertificate:
        print(f"precision-lab certificates revoke: no certificate has the ID {certificate_id}.", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    assert certificate.revoked_at is not None
    print(f"{certificate.id} revoked {certificate.revoked_at.date().isoformat()}: {certificate.revoked_reason}")
    return 0


def _keys(args: argparse.Namespace) -> int:
    if args.new:
        print(new_seed_text())
        return 0
    settings = get_settings()
    public_keys = [settings.load_signing_key().public_key(), *settings.load_previous_public_keys()]
    print(json.dumps(jwks(public_keys, settings.public_base_url), indent=2))
    return 0


def _add_database_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database-url", help="SQLAlchemy URL (default: the database_url setting)")


def _parser() -> argparse.ArgumentParser:
    # Defaults come from the settings when a command runs, so `keys --new` works before any are valid.
    parser = argparse.ArgumentParser(prog="precision-lab", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the web app with uvicorn")
    serve.add_argument("--host", help="address to listen on (default: the host setting, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default: the port setting, 8000)")
    serve.add_argument("--workers", type=int, help="processes (default: the workers setting, 1)")
    serve.set_defaults(handler=_serve)

    bench = commands.add_parser("bench", help="run the benchmarks in bench/ and print their tables")
    bench.add_argument("names", nargs="*", help="only these benchmarks, e.g. `encode` for bench_encode.py")
    bench.set_defaults(handler=_bench)

    hardware = commands.add_parser(
        "hardware-bench", help="measure matrix-multiply throughput per format here; write data/hardware/measured/")
    hardware.add_argument("--device", choices=["cpu", "cuda"], help="default: cuda when torch sees a GPU, else cpu")
    hardware.add_argument("--size", type=_matrix_size, action="append", default=[],
                          help="n of the n×n products, repeatable (default: 1024 and 2048 on cpu, 8192 on cuda)")
    hardware.add_argument("--no-torch", action="store_true", help="numpy only, even where torch is installed")
    hardware.add_argument("--out", type=Path, help="the JSON file to write (default: data/hardware/measured/"
                                                   "<device>.json)")
    hardware.set_defaults(handler=_hardware_bench)

    migrate_command = commands.add_parser("migrate", help="create or upgrade the database schema (Alembic)")
    _add_database_option(migrate_command)
    migrate_command.set_defaults(handler=_migrate)

    certificates = commands.add_parser("certificates", help="list or revoke issued certificates")
    actions = certificates.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="one line per certificate, newest first: id, date, status, score, name")
    listing.add_argument("--status", choices=["valid", "revoked"], help="only certificates with this status")
    _add_database_option(listing)
    listing.set_defaults(handler=_list_certificates)
    revoke = actions.add_parser("revoke", help="mark a certificate revoked; its page and verification say so")
    revoke.add_argument("id", help="the certificate ID, e.g. ABCD-EFGH-JKMN-PQRS-T")
    revoke.add_argument("--reason", required=True, help="why, in a sentence; shown with the certificate")
    _add_database_option(revoke)
    revoke.set_defaults(handler=_revoke_certificate)

    keys = commands.add_parser(
        "keys", help="print the public JWKS: the signing key's (development: made on first use), then earlier ones"
    )
    keys.add_argument("--new", action="store_true", help="print a fresh base64 seed for PRECISION_LAB_SIGNING_KEY")
    keys.set_defaults(handler=_keys)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except ValidationError as error:
        reasons = "\n".join(f"- {_reason(e)}" for e in error.errors())
        print(f"precision-lab: the settings cannot be used:\n{reasons}", file=sys.stderr)
        return 2


def _reason(error: Mapping[str, Any]) -> str:
    """One settings error as its sentence, without pydantic's wrapping; the field is named where it is not."""
    message = str(error["msg"]).removeprefix("Value error, ")
    field = ".".join(str(part) for part in error.get("loc", ()))
    if field and "PRECISION_LAB_" not in message and "DATABASE_URL" not in message and "REDIS_URL" not in message:
        return f"PRECISION_LAB_{field.upper()}: {message}"
    return message


if __name__ == "__main__":
    sys.exit(main())
