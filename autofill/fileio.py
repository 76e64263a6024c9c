"""Small helpers for the files autofill hands to people: output folders checked before the expensive
work starts, and atomically written files that get the permissions of an ordinary new file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from autofill.errors import InputError


def _read_umask() -> int:
    # os.umask can only be read by setting it; do that once, at import, before any worker thread runs.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def ensure_writable_dir(folder: Path | str, what: str = "output folder") -> Path:
    """Create `folder` if needed and check that files can be written in it, so a read-only or
    mistyped output folder is a one-line input error before any row is answered, not an
    unexpected error after the model calls have been paid for."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(f"{what} {folder} is a file, not a folder") from None
    except OSError as exc:
        raise InputError(f"cannot create {what} {folder}: {exc.strerror or exc}") from None
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".autofill-write-check-")
    except OSError as exc:
        raise InputError(f"cannot write to {what} {folder}: {exc.strerror or exc}") from None
    os.close(fd)
    os.unlink(probe)
    return folder


def publish_mode(path: Path | str) -> None:
    """Give a temporary file from mkstemp (always 0600) the mode a plain new file would get (0666
    less the umask) before it is renamed into place: filled questionnaires and eval reports are
    shared with colleagues, and a private-only file on a shared drive is an unpleasant surprise."""
    os.chmod(path, 0o666 & ~_UMASK)


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder and a rename, so a reader
    (or a crash) never sees half a file; the result gets ordinary file permissions."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        publish_mode(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
