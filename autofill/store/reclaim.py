"""What deleting from the embedded Chroma database leaves behind, removed: `forget` calls it so that a
forgotten document's text cannot be read back from the files.

SQLite keeps deleted rows in free pages until the file is rebuilt, FTS5 keeps deleted tokens in its
index segments until they are merged, Chroma keeps recent writes (documents and metadata included) in
its `embeddings_queue` and may leave a deleted collection's HNSW folder (`vectordb/<segment uuid>/`)
on disk. Here, with the store's lock held by the caller: the queue rows of the deleted collections
dropped, the text and metadata of queued writes of records deleted since dropped, the full-text index
merged, the database rebuilt (VACUUM), and every segment folder that no
segment of the database names removed. Embedded mode only: a Chroma server keeps its own files."""

from __future__ import annotations

import logging
import re
import shutil
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

log = logging.getLogger("autofill.store")

DB_NAME = "chroma.sqlite3"
FTS_TABLE = "embedding_fulltext_search"
_SEGMENT_DIR = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
BUSY_TIMEOUT_S = 60.0


DELETE_OPERATION = 3  # chromadb.types.Operation.DELETE, as the queue stores it
_SCRUB_DELETED = (
    "CREATE TEMP TABLE IF NOT EXISTS af_deleted (topic TEXT, id TEXT, last INTEGER, PRIMARY KEY (topic, id))",
    "DELETE FROM af_deleted",
    f"INSERT INTO af_deleted SELECT topic, id, MAX(seq_id) FROM embeddings_queue WHERE operation = {DELETE_OPERATION} "
    "GROUP BY topic, id",
    f"UPDATE embeddings_queue SET metadata = NULL WHERE operation != {DELETE_OPERATION} AND metadata IS NOT NULL "
    "AND seq_id < (SELECT last FROM af_deleted d WHERE d.topic = embeddings_queue.topic AND d.id = embeddings_queue.id)",
    "DROP TABLE af_deleted",
)


@dataclass
class Reclaimed:
    freed_bytes: int = 0  # the database file's shrinkage
    folders: int = 0  # orphaned segment folders removed
    folder_bytes: int = 0
    problem: str = ""  # why the database could not be rebuilt ("" when it was)


def tree_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def collection_ids(vectordb: Path, names: Sequence[str]) -> list[str]:
    """The database ids of the collections `names` (read before they are deleted)."""
    db = vectordb / DB_NAME
    if not db.is_file() or not names:
        return []
    with closing(sqlite3.connect(db, timeout=BUSY_TIMEOUT_S)) as conn:
        marks = ",".join("?" * len(names))
        return [r[0] for r in conn.execute(f"SELECT id FROM collections WHERE name IN ({marks})", list(names))]


def reclaim(vectordb: Path, deleted_collections: Sequence[str] = ()) -> Reclaimed:
    """Drop the queued writes of `deleted_collections` (ids), merge the full-text index, VACUUM, and
    remove segment folders no segment names. Never raises for a busy or unusual database: says why."""
    out = Reclaimed()
    db = vectordb / DB_NAME
    if not db.is_file():
        return out
    before = db.stat().st_size
    try:
        with closing(sqlite3.connect(db, timeout=BUSY_TIMEOUT_S, isolation_level=None)) as conn:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if "embeddings_queue" in tables:
                for cid in deleted_collections:
                    conn.execute("DELETE FROM embeddings_queue WHERE topic LIKE ?", (f"%{cid}%",))
                # Writes of records deleted since: their text and metadata dropped, the rows kept (an HNSW
                # index not yet persisted replays them, the add and then the delete: no text needed).
                for statement in _SCRUB_DELETED:
                    conn.execute(statement)
            if FTS_TABLE in tables:
                conn.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES('optimize')")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("VACUUM")
            segments = {r[0] for r in conn.execute("SELECT id FROM segments")} if "segments" in tables else None
    except sqlite3.Error as exc:
        out.problem = f"{DB_NAME} could not be rebuilt ({exc}): deleted text may remain in its free pages"
        log.warning("%s; run `autofill forget` again when no other autofill command is running", out.problem)
        return out
    out.freed_bytes = max(0, before - db.stat().st_size)
    if segments is not None:
        for folder in vectordb.iterdir():
            if folder.is_dir() and _SEGMENT_DIR.match(folder.name) and folder.name not in segments:
                out.folder_bytes += tree_size(folder)
                shutil.rmtree(folder, ignore_errors=True)
                out.folders += 1
    return out
