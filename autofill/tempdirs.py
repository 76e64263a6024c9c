"""Temporary folders that name the process that made them, and the sweep that removes those of runs
that died (kill -9, power loss) before they could clean up.

Writers build a result aside and rename it into place (BM25 index, review report). A run killed
halfway leaves the half-built folder behind; nothing else would ever delete it. Each such folder is
named `.<stem>.tmp-<host>-<pid>-<random>`, so the next writer in the same folder can tell a leftover
(its process is gone) from the work of a run still going on beside it (another ingest, another
report): only the former is removed. Folders of another machine (a shared drive) and untagged names
from older versions are removed only once they are clearly stale (no write takes hours)."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

STALE_AFTER_S = 6 * 3600.0  # a temporary folder this old belongs to no running write
_TAGGED = re.compile(r"\.tmp-([0-9a-f]{8})-(\d+)-")


def _host() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def owner_tag() -> str:
    """`tmp-<host>-<pid>`: who owns a temporary name."""
    return f"tmp-{_host()}-{os.getpid()}"


def make_temp_dir(parent: Path | str, stem: str) -> Path:
    """A new private folder `.<stem>.tmp-<host>-<pid>-<random>` in `parent` (created if needed)."""
    parent = Path(parent)
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{stem}.{owner_tag()}-", dir=parent))


def temp_name(parent: Path | str, stem: str, what: str) -> Path:
    """A tagged name (not created) in `parent`, e.g. for the old version of a folder being replaced."""
    return Path(parent) / f".{stem}.{owner_tag()}-{what}"


def pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    except OSError:
        return True
    return True


def _age_s(path: Path) -> float:
    try:
        return time.time() - path.lstat().st_mtime
    except OSError:
        return 0.0


def is_leftover(path: Path, legacy: Callable[[str], bool] | None = None,
                stale_after_s: float = STALE_AFTER_S) -> bool:
    """Whether `path` is a temporary entry of a run that is over (see the module docstring)."""
    match = _TAGGED.search(path.name)
    if match:
        host, pid = match.group(1), int(match.group(2))
        if host == _host() and not pid_alive(pid):
            return True
        return _age_s(path) > stale_after_s  # another machine's, or a reused pid: only when stale
    return legacy is not None and legacy(path.name) and _age_s(path) > stale_after_s


def sweep(folder: Path | str, legacy: Callable[[str], bool] | None = None,
          stale_after_s: float = STALE_AFTER_S, prefix: str = ".") -> list[Path]:
    """Remove the leftovers of dead runs among the hidden entries of `folder` (those whose name starts
    with `prefix`); return what went. `legacy(name)`: also untagged names this folder's writers used to
    make (removed once stale). Never raises: cleaning up must not stop the work that follows."""
    folder = Path(folder)
    removed: list[Path] = []
    try:
        entries = [e for e in folder.iterdir() if e.name.startswith(".") and e.name.startswith(prefix)]
    except OSError:
        return removed
    for entry in entries:
        if not is_leftover(entry, legacy, stale_after_s):
            continue
        try:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except FileNotFoundError:
            pass  # another sweeper got there first
        except OSError as exc:
            log.debug("could not remove leftover %s: %s", entry, exc)
            continue
        removed.append(entry)
        log.info("removed %s, left behind by an interrupted run", entry)
    return removed


def tagged_multiprocessing_dir() -> Path | None:
    """Point multiprocessing's temporary folder (where the forkserver keeps its socket; `pymp-*` in the
    temp directory by default, left there for good when the run is killed with -9) to a tagged folder
    under `<temp>/af-mp/` that the next run's sweep removes. Linux only (socket paths stay short there);
    None elsewhere or when this process already has one. Call before starting a multiprocessing context."""
    import multiprocessing.process as mp_process
    import multiprocessing.util as mp_util
    import sys

    config = mp_process.current_process()._config  # noqa: SLF001 - where multiprocessing.util keeps it
    if not sys.platform.startswith("linux") or config.get("tempdir"):
        return None
    parent = Path(tempfile.gettempdir()) / "af-mp"
    sweep(parent)
    # The forkserver's socket is made in this folder: AF_UNIX paths stop at 107 bytes ("listener-XXXXXXXX"
    # and a separator take 18); under a long TMPDIR multiprocessing keeps its own, shorter pymp-* name.
    if len(os.fsencode(str(parent))) + len(".mp.") + len(owner_tag()) + 10 + 18 > 107:
        return None
    folder = make_temp_dir(parent, "mp")
    # Removed at a normal exit exactly as multiprocessing removes its own pymp-* folder.
    mp_util.Finalize(None, mp_util._remove_temp_dir, args=(shutil.rmtree, str(folder)),  # noqa: SLF001
                     exitpriority=-100)
    config["tempdir"] = str(folder)
    return folder
