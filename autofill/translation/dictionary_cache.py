"""Bilingual dictionaries opened in a moment (issue 46): a large dictd dictionary (German-English: 95 MB of
text behind a 13 MB index, 7-15 s to read whole on a loaded machine) is read whole once, by
dictionaries.read_senses, and what it gives (each single-word headword's senses) is kept in a compact
SQLite file, looked up word by word afterwards: `inspect` of a German questionnaire and a run's query
translation no longer read the dictionary in every process. The translations are the same: the compact
file holds exactly what the whole read gives.

Where: the user's cache folder (`AUTOFILL_CACHE_DIR`, else `$XDG_CACHE_HOME/autofill`, else
`~/.cache/autofill`), under `dictionaries/`, one file per dictionary (named by its stem and the hash of
its index's path). The dictionary is a system file shared by every workspace, so its compact copy is
kept per user, not per workspace (inspect writes nothing into a workspace, and a read-only one gets the
same speed). Kept fresh: the file records the dictionary's signature (`FORMAT`, `KEEP`, the size and
modification time of the `.dict.dz` and of the `.index`); a dictionary that changed is read again and the
file replaced. A damaged file (not a database, malformed, truncated: SQLite's quick check) is rebuilt
with one warning naming it. Written atomically (fileio.atomic_write_bytes); a cache folder that cannot be
written is one warning, and the dictionary is then read whole for that process, as before.

Dictionaries under `COMPACT_FROM` bytes (FreeDict's French, Spanish, Italian ...: tenths of a second)
are read whole: a compact file would not pay for itself."""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import tempfile
import threading
from pathlib import Path

from autofill.errors import InputError
from autofill.fileio import atomic_write_bytes
from autofill.translation.dictionaries import KEEP, Dictionary, text_of, read_senses

log = logging.getLogger(__name__)

FORMAT = "1"  # bump when what the compact file holds, or how the whole read makes it, changes
COMPACT_FROM = 1_000_000  # bytes of the dictionary's text file (.dict.dz): smaller ones are read whole


def cache_folder() -> Path:
    """Where compact dictionaries are kept: `AUTOFILL_CACHE_DIR`, else `$XDG_CACHE_HOME/autofill`, else
    `~/.cache/autofill`; then `dictionaries/`."""
    given = os.environ.get("AUTOFILL_CACHE_DIR", "")
    if given:
        return Path(given).expanduser() / "dictionaries"
    base = os.environ.get("XDG_CACHE_HOME", "") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "autofill" / "dictionaries"


def compact_path(index: Path) -> Path:
    """The compact file of the dictionary whose index is `index` ("freedict-deu-eng-<hash>.sqlite")."""
    where = hashlib.sha256(str(Path(index).resolve()).encode("utf-8")).hexdigest()[:12]
    return cache_folder() / f"{Path(index).stem}-{where}.sqlite"


def signature(index: Path) -> str:
    """What the compact file must have been made from: the format, the translations kept per sense, and
    the size and modification time (ns) of the dictionary's text and index files."""
    parts = [FORMAT, str(KEEP)]
    for path in (text_of(index), Path(index)):
        stat = path.stat()
        parts += [str(stat.st_size), str(stat.st_mtime_ns)]
    return ":".join(parts)


class CompactSenses:
    """`dictionaries.Senses` read from a compact file, word by word, each word once per process."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self._known: dict[str, str] = {}

    def get(self, word: str, default: str = "") -> str:
        with self._lock:
            if word not in self._known:
                row = self._conn.execute("SELECT senses FROM senses WHERE word = ?", (word,)).fetchone()
                self._known[word] = row[0] if row else ""
            return self._known[word] or default

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and bool(self.get(word))


def _open_compact(path: Path, wanted: str) -> sqlite3.Connection | None:
    """The compact file at `path` opened read-only when it was made from the dictionary as it is now;
    None when there is none or it is stale. A damaged file raises sqlite3.DatabaseError."""
    if not path.is_file():
        return None
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()
        if row is None or row[0] != wanted:
            conn.close()
            return None
        check = conn.execute("PRAGMA quick_check").fetchone()
        if check is None or check[0] != "ok":
            raise sqlite3.DatabaseError(f"quick check: {check[0] if check else 'no answer'}")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def write_compact(path: Path, wanted: str, senses: dict[str, str]) -> None:
    """The compact file of `senses`, written atomically (built aside, then renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="autofill-dictionary-") as tmp:
        built = Path(tmp) / path.name
        conn = sqlite3.connect(str(built))
        try:
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.execute("CREATE TABLE senses (word TEXT PRIMARY KEY, senses TEXT NOT NULL) WITHOUT ROWID")
            conn.executemany("INSERT INTO senses VALUES (?, ?)", sorted(senses.items()))
            conn.execute("INSERT INTO meta VALUES ('signature', ?)", (wanted,))
            conn.commit()
        finally:
            conn.close()
        atomic_write_bytes(path, built.read_bytes())


def compact_dictionary(index: Path) -> Dictionary:
    """The dictionary of `index` looked up in its compact file, made (or made again) when it is missing,
    stale or damaged; read whole when the file cannot be written."""
    path, wanted = compact_path(index), signature(index)
    try:
        conn = _open_compact(path, wanted)
    except sqlite3.Error as exc:
        log.warning("the compact copy of the dictionary %s (%s) was damaged (%s); making it again",
                    Path(index).name, path, exc)
        conn = None
    if conn is not None:
        return Dictionary(Path(index), CompactSenses(conn))
    senses = read_senses(Path(index))
    try:
        write_compact(path, wanted, senses)
        conn = _open_compact(path, wanted)
    except (InputError, OSError, sqlite3.Error) as exc:
        log.warning("could not keep a compact copy of the dictionary %s in %s (%s): it is read whole in "
                    "each process (set AUTOFILL_CACHE_DIR to a writable folder)", Path(index).name, path.parent, exc)
        conn = None
    return Dictionary(Path(index), CompactSenses(conn) if conn is not None else senses)


_lock = threading.Lock()
_open: dict[Path, Dictionary] = {}


def open_dictionary(index: Path) -> Dictionary:
    """The dictionary of `index`, once per process: a large one through its compact file, a small one
    read whole."""
    with _lock:
        if index not in _open:
            small = text_of(Path(index)).stat().st_size < COMPACT_FROM
            _open[index] = Dictionary.read(Path(index)) if small else compact_dictionary(Path(index))
        return _open[index]
