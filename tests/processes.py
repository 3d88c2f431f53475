"""Stopping the server processes tests start: politely first, then for certain."""

from __future__ import annotations

import subprocess

STOP_SECONDS = 10.0


def stop(process: subprocess.Popen[bytes], seconds: float = STOP_SECONDS) -> None:
    """SIGTERM, and SIGKILL when the process has not ended within `seconds`; nothing when it has ended already."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=seconds)
