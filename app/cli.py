"""The `precision-lab` command: serve the app, run the benchmarks."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

import uvicorn

from app.settings import get_settings

_SOURCE_ROOT = Path(__file__).resolve().parents[1]


def _serve(args: argparse.Namespace) -> int:
    uvicorn.run("app.main:app", host=args.host, port=args.port, workers=args.workers)
    return 0


def _bench(args: argparse.Namespace) -> int:
    if not (_SOURCE_ROOT / "bench" / "__main__.py").is_file():
        print("precision-lab bench: the benchmarks live in bench/ of a source checkout.", file=sys.stderr)
        return 2
    # The benchmarks are not installed with the package, so they are imported from the checkout.
    sys.path.insert(0, str(_SOURCE_ROOT))
    runner = importlib.import_module("bench.__main__")
    return int(runner.main(args.names))


def _parser() -> argparse.ArgumentParser:
    settings = get_settings()
    parser = argparse.ArgumentParser(prog="precision-lab", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the web app with uvicorn")
    serve.add_argument("--host", default=settings.host, help="address to listen on (default %(default)s)")
    serve.add_argument("--port", type=int, default=settings.port, help="port (default %(default)s)")
    serve.add_argument("--workers", type=int, default=settings.workers, help="processes (default %(default)s)")
    serve.set_defaults(handler=_serve)

    bench = commands.add_parser("bench", help="run the benchmarks in bench/ and print their tables")
    bench.add_argument("names", nargs="*", help="only these benchmarks, e.g. `encode` for bench_encode.py")
    bench.set_defaults(handler=_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
