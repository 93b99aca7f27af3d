"""Stopping a league or a match cleanly on Ctrl-C (SIGINT) or SIGTERM.

The league process turns the first signal into :class:`Interrupted` in its main thread:
the job being committed rolls back (a job is recorded whole or not at all), the
workers are sent SIGTERM, kill their bots and remove their temp folders, the pool is
shut down (no leaked semaphores, no ``pymp-*`` folder), and the command prints the
standings so far and exits 128 + the signal (130, 143). Workers ignore SIGINT: a
terminal's Ctrl-C reaches the whole process group, and the league process decides.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """The league or match was asked to stop by ``signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Inside, the first SIGINT or SIGTERM raises :class:`Interrupted`; later ones wait for the cleanup."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired: list[int] = []

    def handler(signum: int, _: FrameType | None) -> None:
        if not fired:
            fired.append(signum)
            raise Interrupted(signum)

    previous = {sig: signal.signal(sig, handler) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def worker_signals(cleanup: Callable[[], None]) -> None:
    """In a worker: ignore SIGINT; on SIGTERM run ``cleanup`` (kill the bots, remove temp folders) and exit."""

    def stop(signum: int, _: FrameType | None) -> None:
        with contextlib.suppress(Exception):
            cleanup()
        os._exit(128 + signum)

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, stop)


def stop_workers(executor: Executor, timeout: float = 10.0) -> None:
    """SIGTERM every local worker process of ``executor`` and wait for them to exit."""
    processes: dict[int, Any] = getattr(executor, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(Exception):
            process.terminate()
    for process in list(processes.values()):
        with contextlib.suppress(Exception):
            process.join(timeout)
