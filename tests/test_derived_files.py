"""Derived files heal (issue 43): what autofill keeps beside a store only to be quicker or to point at pages
(the store's snapshot and search cache, store/snapshot.py; the query-vector and translation caches,
sqlite_cache.py; a report's content index, frameworks/content_index.py) is rebuilt once when damaged, with one
warning naming the file, and never fails a row. Through the real CLI in fresh processes, as the
hostile-use battery did: a workspace ingested and run once, each file then cut short or overwritten with
junk, and the run again (the multilingual index: tests/test_multilingual.py)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from autofill.sqlite_cache import BlobCache
from tests.race_helpers import cli

QUESTION = "What were your gross Scope 1 emissions (tCO2e)?"
INDEX_LINE = "The report's GRI index points here: Report.pdf p. 2"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    from tests.test_ingest_content_index import _report
    from tests.workbook_builders import build_questionnaire

    root = tmp_path_factory.mktemp("derived")
    ws = ["--workspace", str(root / "ws")]
    done = cli([*ws, "ingest", "--company", "Calder", str(_report(root / "Report.pdf")), "--json"])
    assert done.returncode == 0, done.stderr[-3000:]
    q = build_questionnaire(root / "q.xlsx", questions=[("Emissions", QUESTION, "Number", False),
                                                        ("Other", "How many employees do you have?", "Number", False)])
    return root, ws, q


def run(root: Path, ws: list[str], q: Path, name: str):
    from autofill.review.reader import read_filled_workbook

    done = cli([*ws, "run", "--company", "Calder", "--questionnaire", str(q), "--out", str(root / name), "--fresh",
                "--json"])
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(next(ln for ln in reversed(done.stdout.splitlines()) if ln.startswith("{")))
    (out,) = (root / name).glob("*.xlsx")
    rows = {r.question: r for r in read_filled_workbook(out).questions}
    return done.stderr, report, rows


def damaged_lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "damaged" in ln]


def test_damaged_derived_files_are_rebuilt_once_with_one_warning_each_and_no_row_fails(workspace):
    root, ws, q = workspace
    said, report, rows = run(root, ws, q, "first")
    assert report["failed"] == 0 and not damaged_lines(said)
    assert rows[QUESTION].datapoints.splitlines()[-1] == INDEX_LINE
    good = rows[QUESTION].sources
    vectordb = root / "ws" / "vectordb"
    (snapshot,) = vectordb.glob("*.snapshot.json")
    (content_index,) = (vectordb / ".content-index").glob("*.json")
    (searches,) = (vectordb / ".query-cache").glob("searches-*.sqlite")
    queries = vectordb / ".query-cache" / "embeddings.sqlite"
    assert queries.is_file()
    # Cut short, junk, and JSON of the wrong shape.
    snapshot.write_bytes(snapshot.read_bytes()[:40])
    content_index.write_text('{"Report.pdf": [1, 2]}', encoding="utf-8")
    for cache in (searches, queries):
        for part in (cache, cache.with_name(cache.name + "-wal"), cache.with_name(cache.name + "-shm")):
            part.unlink(missing_ok=True)
        cache.write_bytes(b"this is not a database\n" * 200)

    said, report, rows = run(root, ws, q, "second")
    assert report["failed"] == 0 and report["answered"] + report.get("drafted", 0) >= 1, said[-3000:]
    assert rows[QUESTION].datapoints.splitlines()[-1] == INDEX_LINE and rows[QUESTION].sources == good
    warned = damaged_lines(said)
    for path in (snapshot, content_index, searches, queries):
        assert sum(str(path) in ln for ln in warned) == 1, (path, warned)
    assert len(warned) == 4, warned
    # Whole again: read as they were written, and the next run says nothing.
    assert json.loads(snapshot.read_text(encoding="utf-8"))["documents"]
    assert json.loads(content_index.read_text(encoding="utf-8"))["Report.pdf"]["GRI 305-1"] == [2]
    for cache in (searches, queries):
        with sqlite3.connect(cache) as conn:
            assert conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] > 0
    said, report, rows = run(root, ws, q, "third")
    assert report["failed"] == 0 and not damaged_lines(said) and rows[QUESTION].sources == good


def test_a_damaged_cache_starts_afresh_once_even_while_in_use(tmp_path, caplog):
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"\x00junk" * 1000)
    cache = BlobCache(path, "translation cache")
    assert cache.get_blobs(["a"]) == {}
    cache.put_blobs({"a": b"1"})
    assert cache.get_blobs(["a"]) == {"a": b"1"}
    cache.close()
    assert [r.getMessage() for r in caplog.records] == [
        f"the translation cache {path} was damaged (file is not a database); starting it afresh"]
    # Damaged while in use: once more afresh, no exception reaches the caller.
    path.write_bytes(b"\x00junk" * 1000)
    assert cache.get_blobs(["a"]) == {} and cache.get_blobs(["a"]) == {}
