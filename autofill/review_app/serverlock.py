"""One `autofill review` server per workbook: the server holds `.<workbook name>.review-server` beside
the workbook for as long as it serves it (an OS file lock, as outputlock.py holds a run's output: the
kernel lets go when the process dies, kill -9 included). A second server on the same workbook stops
before it listens, with one line naming the first one's address (without its token, which never
goes to disk), process and start time. Saves that still meet across servers (one started on another
machine over a shared folder) are conflicts in the shared sidecar (sidecar.py), never overwrites."""

from __future__ import annotations

import json
import os
from pathlib import Path

from autofill.errors import InputError
from autofill.outputlock import OutputLock, _holder_text

SUFFIX = ".review-server"


def server_lock_path(workbook: Path | str) -> Path:
    workbook = Path(workbook)
    return workbook.parent / f".{workbook.name}{SUFFIX}"


class ServerLock(OutputLock):
    """`ServerLock(workbook).acquire()`, then `announce(address)` once the server listens."""

    def __init__(self, workbook: Path | str) -> None:
        super().__init__(workbook)
        self.path = server_lock_path(self.output)

    def _busy(self) -> InputError:
        try:
            address = json.loads(self.path.read_text(encoding="utf-8") or "{}").get("address", "")
        except (OSError, ValueError):
            address = ""
        where = f" at {address}" if address else ""
        return InputError(f"{self.output.name} is already being reviewed{where} ({_holder_text(self.path)}): use that "
                          "page (the full URL was printed where that review started), or stop it first")

    def announce(self, address: str) -> None:
        """Add the server's address (no token) to the lock file, for the message a second one shows."""
        if self._fd is None:
            return
        info = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        body = json.dumps({**info, "address": address}).encode()
        os.lseek(self._fd, 0, os.SEEK_SET)
        os.ftruncate(self._fd, 0)
        os.write(self._fd, body)


def hold_all(workbooks: list[Path]) -> list[ServerLock]:
    """Locks on every workbook, or none (InputError naming the first one already under review)."""
    held: list[ServerLock] = []
    try:
        for path in workbooks:
            lock = ServerLock(path)
            try:
                lock.acquire()
            except OSError as exc:  # a read-only folder: the sidecar could not be written there either
                raise InputError(f"cannot review {Path(path).name} where it is: {exc.strerror or exc} in "
                                 f"{Path(path).resolve().parent}; copy it to a folder you can write") from None
            held.append(lock)
    except BaseException:
        release_all(held)
        raise
    return held


def release_all(locks: list[ServerLock]) -> None:
    for lock in locks:
        lock.release()
