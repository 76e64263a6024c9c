"""One writer per output: a run holds a lock beside the workbook it writes for the whole run, so a
second run on the same output stops before any model call (one line naming the other process: PID,
host, since when) instead of paying for every row twice and losing one run's answers to the other.

The lock is `.<output name>.autofill-lock` in the output's folder, held with an OS file lock (flock)
that the kernel releases when the process dies, kill -9 included: a stale lock file of a dead run is
simply taken over. Its text (JSON: pid, host, since, command) is only for the message. Where flock is
not available (Windows), the file is created exclusively and a file whose process is gone (same
host) is taken over."""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
from pathlib import Path

from autofill.errors import InputError
from autofill.tempdirs import pid_alive
from autofill.store.chroma_store import now_iso

log = logging.getLogger(__name__)

SUFFIX = ".autofill-lock"


def lock_path(output: Path | str) -> Path:
    output = Path(output)
    return output.parent / f".{output.name}{SUFFIX}"


def _holder_text(path: Path) -> str:
    try:
        info = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        info = {}
    pid, host, since = info.get("pid", "?"), info.get("host", "?"), info.get("since", "?")
    return f"PID {pid} on {host}, since {since}"


class OutputLock:
    """Context manager: `with OutputLock(output): ...`. Raises InputError when another live process
    holds the output."""

    def __init__(self, output: Path | str) -> None:
        self.output = Path(output)
        self.path = lock_path(self.output)
        self._fd: int | None = None

    def __enter__(self) -> "OutputLock":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _busy(self) -> InputError:
        return InputError(f"{self.output.name} is being written by another autofill run ({_holder_text(self.path)}); "
                          f"wait for it to finish, or write to another folder with --out")

    def acquire(self) -> None:

        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": now_iso(),
                           "command": " ".join(sys.argv[:3])}).encode()
        try:
            import fcntl
        except ImportError:  # Windows
            self._acquire_exclusive(body)
            return
        for _ in range(5):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise self._busy() from None
            # The holder before us may have removed the file after we opened it: lock the file that is there.
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, body)
                self._fd = fd
                return
            os.close(fd)
        raise self._busy()

    def _acquire_exclusive(self, body: bytes) -> None:
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                try:
                    info = json.loads(self.path.read_text(encoding="utf-8") or "{}")
                except (OSError, ValueError):
                    info = {}
                if info.get("host") == socket.gethostname() and not pid_alive(int(info.get("pid") or 0)):
                    self.path.unlink(missing_ok=True)  # a dead run's lock
                    continue
                raise self._busy() from None
            os.write(fd, body)
            self._fd = fd
            return
        raise self._busy()

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)  # while still holding it: the next run creates a fresh one
        except OSError as exc:
            log.debug("could not remove %s: %s", self.path, exc)
        os.close(self._fd)  # closing releases the flock
        self._fd = None
