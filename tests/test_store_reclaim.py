"""store/reclaim.py on a database shaped like Chroma's: queued writes of records deleted since lose
their text (a record added again after its delete keeps it), the queue rows of deleted collections go,
free pages are given back, and only the vector folders no segment names are removed."""

from __future__ import annotations

import sqlite3
import uuid

from autofill.store.reclaim import collection_ids, reclaim

SECRET = "Quorvexite smelter text " * 200


def _db(folder):
    db = folder / "chroma.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE collections (id TEXT, name TEXT);
            CREATE TABLE segments (id TEXT, collection TEXT);
            CREATE TABLE embeddings_queue (seq_id INTEGER PRIMARY KEY, operation INTEGER, topic TEXT, id TEXT,
                                           metadata TEXT);
            CREATE TABLE filler (text TEXT);""")
        conn.executemany("INSERT INTO collections VALUES (?, ?)", [("c-keep", "af-keep"), ("c-gone", "af-gone")])
        rows = [(1, 2, "t/c-keep", "a", f'{{"chroma:document": "{SECRET}"}}'),   # deleted at 2
                (2, 3, "t/c-keep", "a", "{}"),
                (3, 2, "t/c-keep", "a", '{"chroma:document": "added again"}'),  # after the delete: kept
                (4, 2, "t/c-keep", "b", '{"chroma:document": "never deleted"}'),
                (5, 2, "t/c-gone", "x", f'{{"chroma:document": "{SECRET}"}}')]
        conn.executemany("INSERT INTO embeddings_queue VALUES (?, ?, ?, ?, ?)", rows)
        conn.executemany("INSERT INTO filler VALUES (?)", [(SECRET,)] * 50)
        conn.execute("DELETE FROM filler")  # free pages full of text
    return db


def test_reclaim(tmp_path):
    db = _db(tmp_path)
    named, orphan = str(uuid.uuid4()), str(uuid.uuid4())
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO segments VALUES (?, 'c-keep')", (named,))
    for name in (named, orphan, "bm25"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "data_level0.bin").write_bytes(b"\0" * 1000)
    assert b"Quorvexite" in db.read_bytes()

    assert collection_ids(tmp_path, ["af-gone"]) == ["c-gone"]
    done = reclaim(tmp_path, ["c-gone"])

    assert done.problem == "" and done.freed_bytes > 0 and (done.folders, done.folder_bytes) == (1, 1000)
    assert b"Quorvexite" not in db.read_bytes()
    with sqlite3.connect(db) as conn:
        left = conn.execute("SELECT seq_id, metadata FROM embeddings_queue ORDER BY seq_id").fetchall()
    assert left == [(1, None), (2, "{}"), (3, '{"chroma:document": "added again"}'),
                    (4, '{"chroma:document": "never deleted"}')]
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == sorted([named, "bm25"])


def test_reclaim_without_a_database_does_nothing(tmp_path):
    assert reclaim(tmp_path).freed_bytes == 0 and collection_ids(tmp_path, ["x"]) == []
