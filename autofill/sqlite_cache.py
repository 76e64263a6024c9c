"""A key -> bytes cache in one SQLite file, shared by threads and processes, that never fails its caller.

Used for query embeddings (providers/query_cache.py) and for a store's search results
(store/snapshot.py). WAL journal: each write is one transaction, so a reader never sees half an entry,
and a lost race between two writers only computes a value twice. A cache that cannot be opened or
written (read-only workspace) is skipped with one warning: it is an optimisation, never a reason for a
command to fail. A damaged file (not a database, a malformed or truncated one) is started afresh once,
with one warning naming it: its entries are made again as they are needed."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path
from typing import Sequence

log = logging.getLogger(__name__)

_PARAMS = 500  # SQLite's bound-parameter limit, with room to spare
_DAMAGED = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB


def damaged(exc: BaseException) -> bool:
    """Whether a SQLite error says the file is damaged (rather than read-only, locked or full)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _DAMAGED
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text


class BlobCache:
    """key -> bytes; thread-safe (one connection behind a lock) and safe across processes (SQLite's own
    locking, with a generous busy timeout). `what` names the cache in the warning when it is unusable."""

    def __init__(self, path: Path | str, what: str = "cache") -> None:
        self.path = Path(path)
        self.what = what
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._broken = False
        self._healed = False  # a damaged file is started afresh once per process

    def _connect(self) -> sqlite3.Connection | None:
        if self._conn is not None or self._broken:
            return self._conn
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), timeout=30.0, check_same_thread=False, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
                conn.execute("SELECT 1 FROM vectors LIMIT 1").fetchall()
            except sqlite3.Error:
                conn.close()
                raise
        except (OSError, sqlite3.Error) as exc:
            if self._heal(exc):
                return self._connect()
            self._give_up(exc)
            return None
        self._conn = conn
        return conn

    def _heal(self, exc: BaseException) -> bool:
        """A damaged file goes (with its journal files) and the cache starts afresh, once: True when it
        did. Anything else (read-only, full disk) is not healed here."""
        if self._healed or not damaged(exc):
            return False
        self._healed = True
        log.warning("the %s %s was damaged (%s); starting it afresh", self.what, self.path, exc)
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None
        for part in (self.path, *(self.path.with_name(self.path.name + s) for s in ("-wal", "-shm", "-journal"))):
            try:
                part.unlink(missing_ok=True)
            except OSError as err:
                log.debug("could not remove %s: %s", part, err)
        return True

    def _give_up(self, exc: BaseException) -> None:
        log.warning("%s %s not used (%s)", self.what, self.path, exc)
        self._broken = True
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None

    def get_blobs(self, keys: Sequence[str]) -> dict[str, bytes]:
        if not keys:
            return {}
        with self._lock:
            conn = self._connect()
            if conn is None:
                return {}
            found: dict[str, bytes] = {}
            try:
                unique = list(dict.fromkeys(keys))
                for start in range(0, len(unique), _PARAMS):
                    part = unique[start:start + _PARAMS]
                    rows = conn.execute(f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(part))})",
                                        part).fetchall()
                    found.update((k, bytes(v)) for k, v in rows if v is not None)
            except sqlite3.Error as exc:
                if not self._heal(exc):
                    self._give_up(exc)
                return {}
            return found

    def put_blobs(self, items: dict[str, bytes], clear: bool = False) -> None:
        """Store `items` in one transaction; `clear` first empties the cache in the same transaction."""
        if not items and not clear:
            return
        with self._lock:
            for _ in range(2):  # again once in a cache started afresh
                conn = self._connect()
                if conn is None:
                    return
                try:
                    with conn:  # one transaction: all of these entries or none
                        conn.execute("BEGIN IMMEDIATE")
                        if clear:
                            conn.execute("DELETE FROM vectors")
                        conn.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)",
                                         list(items.items()))
                    return
                except sqlite3.Error as exc:
                    if not self._heal(exc):
                        self._give_up(exc)
                        return

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
