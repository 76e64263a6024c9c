"""The ingest loop end to end on generated PDFs, with the hashing FakeEmbedder (no model)."""

from __future__ import annotations

import pytest

from autofill.errors import StoreMismatchError
from autofill.ingest.pipeline import chunking_fingerprint, embedder_for, expand_paths, ingest_paths
from autofill.settings import Settings
from autofill.store.chroma_store import list_stores, open_store
from tests import ocr_factory
from tests import pdf_factory as pf
from tests.fakes import FakeEmbedder

ALPHA = [
    "Alpha report. Our Scope 1 emissions were 1,120 kilotonnes of carbon dioxide equivalent in 2023.",
    "Alpha report. Water withdrawal at the Escondida desalination plant was 3.1 gigalitres.",
    "Alpha report. The board sustainability committee met six times to review climate risk.",
]
BETA = [
    "Beta report. Safety performance: zero fatalities and a total recordable injury frequency of 4.2.",
    "Beta report. We target net zero operational greenhouse gas emissions by 2050.",
]


@pytest.fixture
def settings(workspace):
    return Settings(workspace=workspace)


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "reports"
    folder.mkdir()
    return pf.make_text_pdf(folder / "alpha.pdf", ALPHA), pf.make_text_pdf(folder / "beta.pdf", BETA)


def statuses(report):
    return {f.path.rsplit("/", 1)[-1]: f.status for f in report.files}


def test_ingest_then_skip_unchanged_then_replace_changed(settings, docs):
    alpha, beta = docs
    emb = FakeEmbedder()
    report = ingest_paths(settings, "BHP", [alpha, beta], embedder=emb)
    assert statuses(report) == {"alpha.pdf": "new", "beta.pdf": "new"}
    data = report.to_json()
    assert (data["documents"], data["new_documents"], data["pages"], data["failed_documents"]) == (2, 2, 5, 0)
    assert data["chunks"] >= 2 and set(report.timings) == {"parse", "embed", "store"}
    embedded = emb.texts_embedded
    assert embedded == data["chunks"]

    store = open_store(settings, "BHP")
    recs = store.documents()
    assert recs["alpha.pdf"].pages == 3 and recs["alpha.pdf"].source_path == str(alpha.resolve())
    assert store.embedder_name == emb.name
    hit = store.bm25_search("Escondida desalination", 1)[0]
    assert hit.file_name == "alpha.pdf" and hit.page_start <= 2 <= hit.page_end and "Escondida" in hit.text
    hit = store.query(emb.embed_query("zero fatalities recordable injury"), 1)[0]
    assert hit.file_name == "beta.pdf" and hit.page_start == 1 and "fatalities" in hit.text
    last = store.info().last_ingest

    again = ingest_paths(settings, "BHP", [alpha.parent], embedder=emb)  # a folder this time
    assert statuses(again) == {"alpha.pdf": "skipped", "beta.pdf": "skipped"}
    assert again.to_json()["new_documents"] == 0 and again.to_json()["pages"] == 5
    assert emb.texts_embedded == embedded and again.timings["parse"] == 0.0  # neither parsed nor embedded
    assert open_store(settings, "BHP").info().last_ingest == last

    pf.make_text_pdf(alpha, ["Alpha report, restated. Scope 1 emissions were 990 kilotonnes in 2024."])
    third = ingest_paths(settings, "BHP", [alpha, beta], embedder=emb)
    assert statuses(third) == {"alpha.pdf": "replaced", "beta.pdf": "skipped"}
    store = open_store(settings, "BHP")
    assert store.documents()["alpha.pdf"].pages == 1
    assert store.bm25_search("Escondida desalination", 5) == []  # the old version is gone everywhere
    texts = {p.text for p in store.query(emb.embed_query("Alpha report Scope 1 emissions"), 10)}
    assert any("990" in t for t in texts) and not any("1,120" in t for t in texts)
    assert store.chunk_count() == store._chunks.count()  # no leftovers


def test_bad_inputs_fail_one_line_each_and_the_rest_is_ingested(settings, tmp_path, docs):
    alpha, _ = docs
    bad = tmp_path / "bad"
    bad.mkdir()
    paths = [
        pf.make_encrypted_pdf(bad / "locked.pdf"),
        pf.make_corrupt_pdf(bad / "corrupt.pdf"),
        pf.make_not_pdf(bad / "notes.pdf"),
        pf.make_empty_pdf(bad / "empty.pdf"),
        ocr_factory.make_blank_scan_pdf(bad / "scan.pdf"),  # OCR finds no text either
        bad / "missing.pdf",
        pf.make_not_pdf(bad / "notes.txt"),
        alpha,
    ]
    emb = FakeEmbedder()
    report = ingest_paths(settings, "BHP", paths, embedder=emb)
    got = statuses(report)
    assert got.pop("alpha.pdf") == "new"
    assert set(got.values()) == {"failed"} and len(got) == 7
    errors = {f.path.rsplit("/", 1)[-1]: f.error for f in report.files}
    assert all(e and "\n" not in e for name, e in errors.items() if name != "alpha.pdf")
    assert "no such file" in errors["missing.pdf"]
    assert "not a PDF" in errors["notes.txt"]
    assert "password" in errors["locked.pdf"].lower() or "encrypted" in errors["locked.pdf"].lower()
    assert report.to_json()["failed_documents"] == 7 and report.to_json()["documents"] == 1
    assert [p.path for p in report.files] == [str(p) for p in paths]  # reported in the order given
    store = open_store(settings, "BHP")
    assert set(store.documents()) == {"alpha.pdf"}  # nothing half-written from the bad files
    assert store.chunk_count() == store._chunks.count()


def test_only_bad_files_create_no_store(settings, tmp_path):
    report = ingest_paths(settings, "BHP", [tmp_path / "nope.pdf", pf.make_corrupt_pdf(tmp_path / "c.pdf")],
                          embedder=FakeEmbedder())
    assert report.count("failed") == 2
    assert list_stores(settings) == []


def test_a_new_company_is_ingested_without_opening_the_other_stores(settings, docs, monkeypatch):
    from autofill.store import chroma_store

    alpha, beta = docs
    ingest_paths(settings, "Alpha Co", [alpha], embedder=FakeEmbedder())

    def refuse(*_args, **_kwargs):
        raise AssertionError("list_stores: only a not-found message needs the other stores")

    monkeypatch.setattr(chroma_store, "list_stores", refuse)
    report = ingest_paths(settings, "Beta Co", [beta], embedder=FakeEmbedder())
    assert statuses(report) == {"beta.pdf": "new"}
    assert set(open_store(settings, "Beta Co").documents()) == {"beta.pdf"}


def test_expand_paths_folders_sorted_pdf_only_and_deduplicated(tmp_path, docs):
    alpha, beta = docs
    (alpha.parent / "readme.txt").write_text("not a report")
    (alpha.parent / "sub").mkdir()
    empty = tmp_path / "empty"
    empty.mkdir()
    found = expand_paths([alpha.parent, alpha, empty])
    assert found.files == [alpha, beta]
    assert [f.error for f in found.failed] == ["folder contains no PDF files"]
    assert [(s.path, s.reason) for s in found.skipped] == [(str(alpha.parent / "readme.txt"), "not a PDF")]


def test_interrupted_ingest_keeps_store_consistent_and_next_run_completes(settings, docs):
    alpha, beta = docs
    first = ingest_paths(settings, "BHP", [alpha], embedder=FakeEmbedder())
    alpha_chunks = first.files[0].chunks
    beta_chunks = ingest_paths(settings, "Probe", [beta], embedder=FakeEmbedder()).files[0].chunks
    # A new version of alpha, and a run that crashes while embedding it, after beta has been stored
    # (the pipeline takes the smaller file, beta, first).
    pf.make_text_pdf(alpha, ["Alpha report v2. Scope 1 emissions were 990 kilotonnes in 2024. " * 8] * 4)
    assert alpha.stat().st_size > beta.stat().st_size
    crashing = FakeEmbedder(fail_after=beta_chunks)
    with pytest.raises(RuntimeError, match="simulated crash"):
        ingest_paths(settings, "BHP", [beta, alpha], embedder=crashing)
    store = open_store(settings, "BHP")
    # Beta is in; alpha still shows its complete old version; the keyword index caught up by itself.
    assert set(store.documents()) == {"alpha.pdf", "beta.pdf"}
    assert store.documents()["alpha.pdf"].chunks == alpha_chunks
    assert all("v2" not in p.text for p in store.query(FakeEmbedder().embed_query("Alpha report"), 20))
    assert store.chunk_count() == alpha_chunks + beta_chunks
    assert store.bm25_search("fatalities", 1)[0].file_name == "beta.pdf"

    done = ingest_paths(settings, "BHP", [alpha, beta], embedder=FakeEmbedder())
    assert statuses(done) == {"alpha.pdf": "replaced", "beta.pdf": "skipped"}
    store = open_store(settings, "BHP")
    assert store.chunk_count() == store._chunks.count() == done.to_json()["chunks"]
    assert any("v2" in p.text for p in store.bm25_search("Alpha report v2 990", 5))
    rerun = ingest_paths(settings, "BHP", [alpha, beta], embedder=FakeEmbedder())
    assert rerun.to_json()["new_documents"] == 0  # idempotent


def test_a_new_store_interrupted_after_one_document_still_says_when_it_was_ingested(settings, docs):
    alpha, beta = docs
    beta_chunks = ingest_paths(settings, "Probe", [beta], embedder=FakeEmbedder()).files[0].chunks
    with pytest.raises(RuntimeError, match="simulated crash"):
        ingest_paths(settings, "Gamma", [beta, alpha], embedder=FakeEmbedder(fail_after=beta_chunks))
    info = open_store(settings, "Gamma").info()
    assert [d.file_name for d in info.documents] == ["beta.pdf"]
    assert info.last_ingest  # dated although the run never reached its end


def test_embedder_mismatch_is_refused_before_any_work(settings, docs):
    alpha, beta = docs
    ingest_paths(settings, "BHP", [alpha], embedder=FakeEmbedder(name="fake:a"))
    other = FakeEmbedder(name="fake:b")
    with pytest.raises(StoreMismatchError, match=r"built with embedder fake:a, not fake:b.*autofill forget"):
        ingest_paths(settings, "BHP", [beta], embedder=other)
    assert other.texts_embedded == 0
    assert set(open_store(settings, "BHP").documents()) == {"alpha.pdf"}


def test_same_name_twice_and_same_content_under_another_name(settings, tmp_path, docs):
    alpha, _ = docs
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    clash = pf.make_text_pdf(other_dir / "alpha.pdf", ["A different alpha."])
    copy = other_dir / "alpha-copy.pdf"
    copy.write_bytes(alpha.read_bytes())
    report = ingest_paths(settings, "BHP", [alpha, clash], embedder=FakeEmbedder())
    assert [f.status for f in report.files] == ["new", "failed"]
    assert "another file named alpha.pdf" in report.files[1].error
    twin = ingest_paths(settings, "BHP", [copy], embedder=FakeEmbedder())
    assert twin.files[0].status == "skipped" and "same content as alpha.pdf" in twin.files[0].error
    assert set(open_store(settings, "BHP").documents()) == {"alpha.pdf"}


class RecordingReporter:
    """Keeps every bar event, to check what the ingest reports as progress."""

    def __init__(self):
        self.events = []

    def message(self, text):
        self.events.append(("message", text))

    def warning(self, text):
        self.events.append(("warning", text))

    def bar(self, label, total, unit=""):
        self.events.append(("bar", label, total, unit))
        events = self.events

        class Bar:
            def advance(self, n=1):
                events.append(("advance", n))

            def note(self, text):
                events.append(("note", text))

            def close(self):
                events.append(("close",))

        return Bar()


def test_progress_counts_embedded_chunks_and_messages_go_to_logging(settings, docs, capsys, caplog, monkeypatch):
    import logging

    # A CLI test earlier in this process may have configured logging to print; here only the records count.
    monkeypatch.setattr(logging.getLogger("autofill"), "handlers", [])
    reporter = RecordingReporter()
    emb = FakeEmbedder()
    with caplog.at_level(logging.INFO, logger="autofill"):
        report = ingest_paths(settings, "BHP", list(docs), embedder=emb, reporter=reporter)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""  # a stage never prints
    bars = [e for e in reporter.events if e[0] == "bar"]
    # One bar per file (smallest first), over its pages; it advances only as their chunks are embedded.
    pages = {f.path.rsplit("/", 1)[-1]: f.pages for f in report.files}
    assert [(label.split()[-1], total, unit) for _, label, total, unit in bars] == \
        [("beta.pdf", pages["beta.pdf"], "pages"), ("alpha.pdf", pages["alpha.pdf"], "pages")]
    assert sum(e[1] for e in reporter.events if e[0] == "advance") == sum(pages.values())
    assert emb.texts_embedded == sum(f.chunks for f in report.files)
    assert reporter.events.count(("close",)) == 2
    lines = [r.getMessage() for r in caplog.records if r.name == "autofill.ingest.pipeline"]
    assert any(line.startswith("new") and "alpha.pdf: 3 pages" in line for line in lines)

    # Without a reporter: no bars, nothing printed.
    ingest_paths(settings, "ACME", list(docs), embedder=FakeEmbedder())
    assert capsys.readouterr() == ("", "")


def test_a_dying_parse_helper_fails_only_the_file_it_was_parsing(docs):
    import os
    import signal

    from autofill.ingest.parse_helper import Parser
    from autofill.settings import IngestSettings

    alpha, beta = docs
    parser = Parser([alpha, beta], IngestSettings())
    try:
        os.kill(parser._proc.pid, signal.SIGKILL)  # what a segfault in the PDF library does
        first = list(parser.stream(alpha))
        second = list(parser.stream(beta))  # parsed by a fresh helper
    finally:
        parser.close()
    assert first[-1][0] == "failed" and "parser stopped on this file (killed by SIGKILL" in first[-1][1]
    assert [m[0] for m in second] == ["start", "pages", "done"] and second[0][2] == 2
    assert sum(len(m[1]) for m in second if m[0] == "pages") == 2


@pytest.mark.parametrize("provider, model, recorded, expected", [
    ("", "", None, "local:bge-small-en-v1.5"),  # a new store, nothing chosen: local
    ("", "", "local:all-MiniLM-L6-v2", "local:all-MiniLM-L6-v2"),  # a store from before bge keeps MiniLM
    ("local", "", "local:all-MiniLM-L6-v2", "local:all-MiniLM-L6-v2"),  # --embedder local on it: the same
    ("openai", "", None, "openai:text-embedding-3-small"),
    ("", "", "openai:text-embedding-3-large", "openai:text-embedding-3-large"),  # nothing chosen: the store's
    ("openai", "", "openai:text-embedding-3-large", "openai:text-embedding-3-large"),  # same provider: its model
    ("local", "", "openai:text-embedding-3-large", "local:bge-small-en-v1.5"),  # another: refused by the caller
    ("", "text-embedding-3-small", "openai:text-embedding-3-large", "openai:text-embedding-3-small"),
])
def test_embedder_for_follows_the_store_unless_chosen(workspace, provider, model, recorded, expected):
    s = Settings(workspace=workspace)
    s.embedding.provider, s.embedding.model = provider, model
    assert embedder_for(s, recorded) == expected


def test_the_torch_runtime_gives_a_new_store_the_model_it_runs(workspace):
    s = Settings(workspace=workspace)
    s.embedding.runtime = "torch"
    assert embedder_for(s, None) == "local:all-MiniLM-L6-v2"
    assert embedder_for(s, "local:bge-small-en-v1.5") == "local:bge-small-en-v1.5"  # the store's, as always


def test_default_embedder_is_the_stores_and_an_explicit_other_one_is_refused(settings, docs):
    alpha, beta = docs
    ingest_paths(settings, "BHP", [alpha], embedder=FakeEmbedder(name="fake:a"))
    settings.embedding.provider = "local"
    with pytest.raises(StoreMismatchError, match=r"built with embedder fake:a, not local:bge-small-en-v1.5"):
        ingest_paths(settings, "BHP", [beta])  # refused before a model is built
    settings.embedding.provider = ""
    # Nothing chosen: the pipeline asks for the store's own embedder (which the factory cannot build here).
    with pytest.raises(Exception, match="unknown embedder 'fake:a'"):
        ingest_paths(settings, "BHP", [beta])
    assert set(open_store(settings, "BHP").documents()) == {"alpha.pdf"}


def test_unchanged_bytes_are_rechunked_when_the_chunking_settings_changed(settings, docs):
    alpha, beta = docs
    emb = FakeEmbedder()
    first = ingest_paths(settings, "BHP", [alpha, beta], embedder=emb)
    store = open_store(settings, "BHP")
    assert {r.chunking for r in store.documents().values()} == {chunking_fingerprint(settings.ingest)}
    assert statuses(ingest_paths(settings, "BHP", [alpha, beta], embedder=emb)) == {
        "alpha.pdf": "skipped", "beta.pdf": "skipped"}

    settings.ingest.chunk_chars = 200  # small enough to cut each one-paragraph page on its own
    embedded = emb.texts_embedded
    smaller = ingest_paths(settings, "BHP", [alpha, beta], embedder=emb)
    assert statuses(smaller) == {"alpha.pdf": "replaced", "beta.pdf": "replaced"}
    assert emb.texts_embedded > embedded
    store = open_store(settings, "BHP")
    recs = store.documents()
    assert recs["alpha.pdf"].chunking == chunking_fingerprint(settings.ingest)
    assert recs["alpha.pdf"].chunks == smaller.files[0].chunks != first.files[0].chunks
    assert store.chunk_count() == store._chunks.count() == smaller.to_json()["chunks"]  # no old chunks left
    assert max(len(p.text) for p in store.query(emb.embed_query("Alpha report"), 20)) <= 200
    assert statuses(ingest_paths(settings, "BHP", [alpha, beta], embedder=emb)) == {
        "alpha.pdf": "skipped", "beta.pdf": "skipped"}  # the new settings are recorded


def test_records_from_before_the_fingerprint_are_rebuilt_once(settings, docs):
    import dataclasses

    alpha, _ = docs
    ingest_paths(settings, "BHP", [alpha], embedder=FakeEmbedder())
    store = open_store(settings, "BHP")
    old = dataclasses.asdict(store.documents()["alpha.pdf"])
    old.pop("chunking")  # what a store written before this field holds
    old.pop("warnings")  # (nor that one)
    store._docs.delete(ids=["alpha.pdf"])  # an upsert would merge the old metadata into the new
    store._docs.add(ids=["alpha.pdf"], embeddings=[[1.0]], metadatas=[old])
    assert open_store(settings, "BHP").documents()["alpha.pdf"].chunking == ""
    assert statuses(ingest_paths(settings, "BHP", [alpha], embedder=FakeEmbedder())) == {"alpha.pdf": "replaced"}
    assert statuses(ingest_paths(settings, "BHP", [alpha], embedder=FakeEmbedder())) == {"alpha.pdf": "skipped"}


def test_force_reingests_unchanged_files(settings, docs):
    alpha, beta = docs
    ingest_paths(settings, "BHP", [alpha, beta], embedder=FakeEmbedder())
    emb = FakeEmbedder()
    forced = ingest_paths(settings, "BHP", [alpha, beta], embedder=emb, force=True)
    assert statuses(forced) == {"alpha.pdf": "replaced", "beta.pdf": "replaced"}
    assert emb.texts_embedded == forced.to_json()["chunks"] > 0
    store = open_store(settings, "BHP")
    assert store.chunk_count() == store._chunks.count() == forced.to_json()["chunks"]


@pytest.mark.parametrize("knob, value", [
    ("chunk_chars", 800), ("chunk_overlap", 0), ("min_chunk_chars", 100), ("extract_tables", False),
    ("table_pages", "all"),
])
def test_every_chunking_knob_changes_the_fingerprint(knob, value):
    from autofill.settings import IngestSettings

    base = IngestSettings()
    changed = IngestSettings(**{knob: value})
    assert chunking_fingerprint(changed) != chunking_fingerprint(base) == chunking_fingerprint(IngestSettings())
    assert chunking_fingerprint(IngestSettings(min_page_chars=5)) == chunking_fingerprint(base)  # no chunk changes


def test_a_new_chunker_version_changes_the_fingerprint(monkeypatch):
    from autofill.ingest import chunking
    from autofill.settings import IngestSettings

    before = chunking_fingerprint(IngestSettings())
    monkeypatch.setattr(chunking, "CHUNKER_VERSION", chunking.CHUNKER_VERSION + 1)
    assert chunking_fingerprint(IngestSettings()) != before


def test_a_file_whose_parse_helper_died_is_tried_once_more(settings, docs, monkeypatch):
    """A helper killed mid-file (out of memory, a process manager) says nothing about the file: it is
    parsed again by a fresh helper, and only a second failure is reported, with both causes."""
    from autofill.ingest import pipeline
    from autofill.ingest.parse_helper import CRASHED

    alpha, beta = docs
    real = pipeline._read_and_embed
    calls = []

    def first_attempt_killed(messages, path, *args, **kwargs):
        calls.append(path.name)
        if path == alpha and calls.count(alpha.name) == 1:
            list(messages)  # the helper finishes its messages; the attempt is lost anyway
            return pipeline._Embedded(error=f"{CRASHED} (killed by SIGKILL: the kernel's out-of-memory killer)")
        return real(messages, path, *args, **kwargs)

    monkeypatch.setattr(pipeline, "_read_and_embed", first_attempt_killed)
    report = ingest_paths(settings, "BHP", [alpha, beta], embedder=FakeEmbedder())
    assert statuses(report) == {"alpha.pdf": "new", "beta.pdf": "new"}
    assert calls.count(alpha.name) == 2

    def always_killed(messages, path, *args, **kwargs):
        list(messages)
        return pipeline._Embedded(error=f"{CRASHED} (killed by SIGKILL)")

    monkeypatch.setattr(pipeline, "_read_and_embed", always_killed)
    again = ingest_paths(settings, "Other", [alpha], embedder=FakeEmbedder())
    (failed,) = again.files
    assert failed.status == "failed" and failed.error.endswith("(tried twice)")
    assert again.to_json()["failed"] == [{"file": str(alpha), "why": failed.error}]
