"""A read-only workspace is one line and exit 2, in every command that writes it, before any model call
(issue 43). Each command writes the workspace: a run its checkpoints, response and query caches and the
store's search cache, even `companies` and `forget` through Chroma's own database. Without this check a
run on a read-only workspace failed row by row with database internals (`attempt to write a readonly
database`, `'RustBindingsAPI' object has no attribute 'bindings'`) and advised a re-run.

The check writes and removes a probe file in each of the workspace's folders that exist (and opens the
store's database for writing, writing nothing): permission bits do not stop root, a read-only mount
or an immutable folder (`chattr +i`) does, and only trying tells them apart. A few system calls."""

from __future__ import annotations

import contextlib
import errno
import os
import uuid
from pathlib import Path
from typing import Any

from autofill.errors import InputError

READ_ONLY_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS}
# Folders under vectordb/ that commands write (caches, the multilingual and content indexes, turns).
_SUBFOLDERS = (".llm-cache", ".query-cache", ".multilingual", ".content-index", ".turns", "bm25")


def read_only_error(settings: Any, folder: Path | str) -> InputError:
    """The one line for a workspace autofill cannot write in (`folder`: where it found out)."""
    return InputError(
        f"the workspace {settings.workspace} is read-only: autofill cannot write in {folder} (its evidence "
        f"stores, caches and run checkpoints live there); make it writable (its owner and mode, or mount it "
        f"read-write), or copy it elsewhere and pass --workspace COPY")


def _probe_folder(folder: Path) -> OSError | None:
    probe = folder / f".autofill-probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        return exc
    os.close(fd)
    with contextlib.suppress(OSError):
        probe.unlink()
    return None


def _probe_file(path: Path) -> OSError | None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # opened for writing, nothing written
    except OSError as exc:
        return exc
    os.close(fd)
    return None


def ensure_workspace_writable(settings: Any) -> None:
    """Raise the read-only line when a folder of the workspace that exists (vectordb/, its caches and
    indexes, reports_out/) or the store's database cannot be written. Folders not made yet are left to
    the command that makes them."""
    vectordb = Path(settings.vectordb_dir)
    folders = [vectordb, *(vectordb / name for name in _SUBFOLDERS), Path(settings.reports_dir),
               Path(settings.reports_dir) / ".checkpoints"]
    for folder in folders:
        if folder.is_dir():
            exc = _probe_folder(folder)
            if exc is not None and exc.errno in READ_ONLY_ERRNOS:
                raise read_only_error(settings, folder)
    database = vectordb / "chroma.sqlite3"
    if database.is_file():
        exc = _probe_file(database)
        if exc is not None and exc.errno in READ_ONLY_ERRNOS:
            raise read_only_error(settings, database)
