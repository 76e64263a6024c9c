"""The checkpoint of a run is keyed by everything that shapes its answers, so a resumed run never
mixes rows answered under different evidence."""

from autofill.answer.pipeline import _Plan
from autofill.records import DocumentRecord
from autofill.settings import Settings


def _plan(chunking: str, sha: str = "a" * 64) -> _Plan:
    doc = DocumentRecord(file_name="r.pdf", sha256=sha, pages=3, chunks=9, empty_pages=0,
                         ingested_at="2026-01-01T00:00:00+00:00", chunking=chunking)
    return _Plan(mode="hybrid", rerank="none", chat_model="", embedder="local:all-MiniLM-L6-v2",
                 documents={"r.pdf": doc})


def test_rechunked_documents_change_the_run_fingerprint(tmp_path):
    s = Settings(workspace=tmp_path)
    assert _plan("c1").fingerprint(s) == _plan("c1").fingerprint(s)
    assert _plan("c1").fingerprint(s) != _plan("c2").fingerprint(s)
    assert _plan("c1").fingerprint(s) != _plan("c1", sha="b" * 64).fingerprint(s)


def test_retrieval_settings_change_the_run_fingerprint(tmp_path):
    a, b = Settings(workspace=tmp_path), Settings(workspace=tmp_path)
    b.retrieval.final_k = 8
    assert _plan("c1").fingerprint(a) != _plan("c1").fingerprint(b)
