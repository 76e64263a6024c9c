"""Small helpers for the files autofill hands to people: output folders checked before the expensive
work starts, workbooks open in Excel or LibreOffice left alone, and atomically written files that get
the permissions of an ordinary new file.

Every failure here is an `InputError` (one line, exit 2) that names the path: a user can fix a locked,
read-only or unwritable file, and an "unexpected error" with a temporary file's name helps nobody."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from autofill.errors import InputError
from autofill.tempdirs import owner_tag, sweep


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


# errno values that mean "you may not", whatever the platform calls them.
PERMISSION_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS}


def lock_file(path: Path | str) -> tuple[Path, str] | None:
    """The lock file an office suite keeps beside `path` while it has it open, and the suite's name:
    Excel's owner file `~$NAME`, LibreOffice's `.~lock.NAME#`. None when neither exists."""
    path = Path(path)
    for name, app in ((f"~${path.name}", "Excel"), (f".~lock.{path.name}#", "LibreOffice")):
        candidate = path.parent / name
        if candidate.exists():
            return candidate, app
    return None


def ensure_not_open(path: Path | str, allow: tuple[str, ...] = ()) -> None:
    """Refuse to write `path` while Excel or LibreOffice has it open (its lock file exists): saving over
    an open workbook is silently lost when the user saves there, or fails on Windows after the work is
    done. `allow` names suites whose lock is expected (--live drives the workbook open in Excel)."""
    found = lock_file(path)
    if found is not None and found[1] not in allow:
        lock, app = found
        raise InputError(f"close {Path(path).name} in {app} first (it is open there: {lock} exists)")


def warn_if_open(path: Path | str) -> bool:
    """Log a warning when an input workbook is open in an office suite: it is read as last saved, so
    edits not yet saved there are not seen. True when it is open."""
    found = lock_file(path)
    if found is not None:
        import logging

        logging.getLogger(__name__).warning("%s is open in %s: it is read as last saved; unsaved edits there "
                                            "are not seen", Path(path).name, found[1])
    return found is not None


def ensure_writable_file(path: Path | str, what: str = "output") -> Path:
    """Before the work starts: `path` can be written when the time comes. Its folder is writable, no
    office suite has it open, and it is not a read-only file (a file someone marked read-only is not
    replaced behind their back, even by a user whom permissions would let)."""
    path = Path(path)
    ensure_writable_dir(path.parent, "output folder" if what == "output" else "folder")
    ensure_not_open(path)
    if path.is_dir():
        raise InputError(f"{what} {path} is a folder, not a file")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise InputError(f"cannot use {what} {path}: {exc.strerror or exc}") from None
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise InputError(f"{what} {path} is read-only; make it writable or choose another --out folder")
    return path


def publish_mode(path: Path | str) -> None:
    """Give a temporary file from mkstemp (always 0600) the mode a plain new file would get (0666
    less the umask) before it is renamed into place: filled questionnaires and eval reports are
    shared with colleagues, and a private-only file on a shared drive is an unpleasant surprise."""
    os.chmod(path, 0o666 & ~_UMASK)


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder and a rename, so a reader
    (or a crash) never sees half a file; the result gets ordinary file permissions. A file open in
    Excel or LibreOffice, a read-only file or an unwritable folder is an InputError naming `path`,
    and nothing is written."""
    path = Path(path)
    ensure_writable_file(path, "file")
    remove_leftovers(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{owner_tag()}-", suffix=".tmp")
    except OSError as exc:
        raise _write_error(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        publish_mode(tmp)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _write_error(path, exc) from None
        raise


def remove_leftovers(path: Path | str) -> list[Path]:
    """Remove the temporary files that saves of `path` killed halfway left beside it (their names carry
    the writing process, tempdirs.py; untagged ones of earlier versions once they are hours old)."""
    path = Path(path)
    return sweep(path.parent, legacy=lambda name: name.endswith(".tmp"), prefix=f".{path.name}.")


def _write_error(path: Path, exc: OSError) -> InputError:
    """An OSError while writing `path` as one line about `path`, never about a temporary file."""
    if exc.errno in PERMISSION_ERRNOS:
        return InputError(f"cannot write {path}: permission denied")
    if exc.errno == errno.ENOSPC:
        return InputError(f"cannot write {path}: no space left on the device")
    return InputError(f"cannot write {path}: {exc.strerror or exc}")


def missing(what: str, path: Path | str) -> InputError:
    """A "not found" error that names the folder it looked in: `questionnaire not found: q.xlsx
    (looked in /home/ana/work)`, so a command run from the wrong folder says so."""
    path = Path(path)
    return InputError(f"{what} not found: {path.name} (looked in {path.expanduser().resolve().parent})")
