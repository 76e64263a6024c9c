"""Ctrl-C and SIGTERM of a driver that waits on work elsewhere (portfolio/ray_engine.py), remembered so
that they stop it even where their KeyboardInterrupt is swallowed on its way."""

from __future__ import annotations

import signal
import threading
from typing import Any


class Interrupts:
    """Ctrl-C (SIGINT) and SIGTERM of the driver raise KeyboardInterrupt, so the tasks are cancelled and
    the local instance shut down, and are remembered: a KeyboardInterrupt raised where it is swallowed (a
    finaliser, or inside Ray's own code while the driver waits) still stops the run at the next look
    (`check`), where the driver used to finish the whole batch and exit 0."""

    def __init__(self) -> None:
        self.seen = False
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signal handlers belong to the main thread; a host that runs us elsewhere keeps its own

        def interrupt(signum: int, frame: Any) -> None:
            self.seen = True
            raise KeyboardInterrupt

        self._previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}

    def restore(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous = {}

    def check(self) -> None:
        if self.seen:
            raise KeyboardInterrupt
