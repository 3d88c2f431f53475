"""Run the benchmarks: the main() of every bench/bench_*.py module, in name order (`make bench`)."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path

_BENCH_DIR = Path(__file__).resolve().parent


def available() -> list[str]:
    """Names of the benchmark modules in bench/, e.g. ["bench_encode"]."""
    return sorted(m.name for m in pkgutil.iter_modules([str(_BENCH_DIR)]) if m.name.startswith("bench_"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("names", nargs="*", help="only these benchmarks, e.g. `encode` for bench_encode.py")
    args = parser.parse_args(argv)

    found = available()
    if not found:
        parser.error("there are no bench/bench_*.py modules to run.")
    wanted = [name if name.startswith("bench_") else f"bench_{name}" for name in args.names] or found
    unknown = [name for name in wanted if name not in found]
    if unknown:
        parser.error(f"no benchmark named {', '.join(unknown)}; there are {', '.join(found)}.")

    for name in wanted:
        print(f"\n== {name} ==", flush=True)
        importlib.import_module(f"bench.{name}").main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
