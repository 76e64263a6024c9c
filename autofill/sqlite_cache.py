"""A key -> bytes cache in one SQLite file, shared by threads and processes, that never fails its caller.

Used for query embeddings (providers/query_cache.py) and for a store's search results
(store/snapshot.py). WAL journal: each write is one transaction, so a reader never sees half an entry,
and a lost race between two writers only computes a value twice. A cache that cannot be opened or
written (read-only workspace, damaged file) is skipped with one warning: it is an optimisation, never a
reason for a command to fail."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path
from typing import Sequence

log = logging.getLogger(__name__)

_PARAMS = 500  # SQLite's bound-parameter limit, with room to spare


class BlobCache:
    """key -> bytes; thread-safe (one connection behind a lock) and safe across processes (SQLite's own
    locking, with a generous busy timeout). `what` names the cache in the warning when it is unusable."""

    def __init__(self, path: Path | str, what: str = "cache") -> None:
        self.path = Path(path)
        self.what = what
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._broken = False

    def _connect(self) -> sqlite3.Connection | None:
        if self._conn is not None or self._broken:
            return self._conn
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), timeout=30.0, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
        except (OSError, sqlite3.Error) as exc:
            self._give_up(exc)
            return None
        self._conn = conn
        return conn

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
                self._give_up(exc)
                return {}
            return found

    def put_blobs(self, items: dict[str, bytes], clear: bool = False) -> None:
        """Store `items` in one transaction; `clear` first empties the cache in the same transaction."""
        if not items and not clear:
            return
        with self._lock:
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
            except sqlite3.Error as exc:
                self._give_up(exc)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
