"""Nothing is destroyed: before a run replaces an existing output, the previous file is copied to
`<output folder>/history/<name>.<UTC timestamp>.<ext>`. Only the newest `keep` copies of each output
name are kept, so a folder of weekly re-runs does not grow without bound; the run's summary names the
copy it made."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

from autofill.fileio import atomic_write_bytes

log = logging.getLogger(__name__)

HISTORY_DIR = "history"
_STAMP = re.compile(r"^(\d{8}T\d{6})(?:-(\d+))?Z$")


def history_dir(output: Path) -> Path:
    return Path(output).parent / HISTORY_DIR


def versions(output: Path) -> list[Path]:
    """The history copies of `output`, oldest first."""
    output = Path(output)
    folder = history_dir(output)
    if not folder.is_dir():
        return []
    found = []
    for p in folder.iterdir():
        if not p.is_file() or p.suffix != output.suffix or not p.name.startswith(output.stem + "."):
            continue
        m = _STAMP.match(p.name[len(output.stem) + 1:-len(output.suffix)])
        if m:
            found.append(((m.group(1), int(m.group(2) or 1)), p))
    return [p for _, p in sorted(found)]


def keep_previous(output: Path, keep: int = 10) -> Path | None:
    """Copy an existing `output` into history/ (atomically) and prune old copies to `keep`; the copy's
    path, or None when there was nothing to keep (or `keep` is 0: history switched off)."""
    output = Path(output)
    if keep <= 0 or not output.is_file():
        return None
    folder = history_dir(output)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    # Several runs in one second: number them after the highest kept one, so the name order stays
    # the age order (pruning relies on it) and a kept version is never overwritten.
    same = [_STAMP.match(p.name[len(output.stem) + 1:-len(output.suffix)]) for p in versions(output)]
    taken = [int(m.group(2) or 1) for m in same if m and m.group(1) == stamp]
    n = max(taken) + 1 if taken else 1
    target = folder / f"{output.stem}.{stamp}{f'-{n}' if n > 1 else ''}Z{output.suffix}"
    atomic_write_bytes(target, output.read_bytes())
    for old in versions(output)[:-keep]:
        try:
            old.unlink()
        except OSError as exc:
            log.warning("could not remove old history copy %s: %s", old, exc)
    return target
