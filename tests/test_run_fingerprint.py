"""The checkpoint of a run is keyed by everything that shapes its answers, so a resumed run never
mixes rows answered under different evidence."""

from autofill.answer.pipeline import _RunPlan
from autofill.plan import resolve_plan
from autofill.records import DocumentRecord
from autofill.settings import Settings


class _Chat:
    model = "gpt-4o-mini"


def _plan(chunking: str, sha: str = "a" * 64, chat=None) -> _RunPlan:
    doc = DocumentRecord(file_name="r.pdf", sha256=sha, pages=3, chunks=9, empty_pages=0,
                         ingested_at="2026-01-01T00:00:00+00:00", chunking=chunking)
    return _RunPlan(resolve_plan(Settings(), chat=chat, embedder="local:all-MiniLM-L6-v2"), {"r.pdf": doc})


def test_rechunked_documents_change_the_run_fingerprint(tmp_path):
    s = Settings(workspace=tmp_path)
    assert _plan("c1").fingerprint(s) == _plan("c1").fingerprint(s)
    assert _plan("c1").fingerprint(s) != _plan("c2").fingerprint(s)
    assert _plan("c1").fingerprint(s) != _plan("c1", sha="b" * 64).fingerprint(s)


def test_retrieval_settings_change_the_run_fingerprint(tmp_path):
    a, b = Settings(workspace=tmp_path), Settings(workspace=tmp_path)
    b.retrieval.final_k = 8
    assert _plan("c1").fingerprint(a) != _plan("c1").fingerprint(b)


def test_a_workspace_prompt_template_changes_the_run_fingerprint(tmp_path):
    from autofill.templating import PACKAGE_TEMPLATES, template_source

    s = Settings(workspace=tmp_path)
    plan = _plan("c1", chat=_Chat())
    before = plan.fingerprint(s)
    assert template_source(s.templates_dir, "answer") == (PACKAGE_TEMPLATES / "answer.j2").read_text(encoding="utf-8")
    assert template_source(s.templates_dir, "no_such_template") == ""
    s.templates_dir.mkdir(parents=True, exist_ok=True)
    (s.templates_dir / "answer.j2").write_text("Answer {{ question }}", encoding="utf-8")
    assert template_source(s.templates_dir, "answer") == "Answer {{ question }}"
    assert plan.fingerprint(s) != before
