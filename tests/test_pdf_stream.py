"""Streaming a PDF page batch by page batch (ingest/pdf.py PdfReader, ingest/chunking.py ChunkStream,
ingest/parse_helper.py) gives exactly the pages and chunks of parsing and chunking the whole file.

The generated report has what crosses page boundaries: paragraphs that run on over a page break (chunks
spanning pages), a ruled table cut by a page break whose second piece lacks its header (repaired from the
page before), running headers and page numbers (furniture found from all pages), headings whose levels
are decided from the whole document."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from autofill.ingest.chunking import ChunkStream, chunk_document
from autofill.ingest.parse_helper import HEAVY, Parser, stream_file
from autofill.ingest.pdf import PdfReader, parse_pdf
from autofill.settings import IngestSettings, Settings
from tests import pdf_factory as pf
from tests.fakes import FakeEmbedder

REPO = Path(__file__).resolve().parents[1]

PARA = ("Each site reports its energy use, its emissions and its water withdrawals every month to the group "
        "sustainability team, which checks them against the meters and the invoices before they are published. ")


CAPTION = "Emissions and water by site, year ended 30 June 2023"


def report_pages(rows_first: int = 4) -> list[list[tuple]]:
    rows = pf.big_table_rows(9)
    return [
        [("h1", "Climate report"), ("p", PARA * 3), ("h2", "Energy"), ("p", PARA * 4)],
        [("p", PARA * 2), ("h2", "Water"), ("p", PARA * 3)],
        [("h1", "Emissions"), ("p", CAPTION), ("space", 330),
         ("table", pf.TABLE_HEADER, rows[:rows_first])],
        [("table", None, rows[rows_first:]), ("p", PARA * 2), ("h2", "Targets"), ("p", PARA * 3)],
        [("h2", "Governance"), ("p", PARA * 5)],
        [("h1", "Outlook"), ("p", PARA * 2)],
    ]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return pf.make_pdf(tmp_path_factory.mktemp("stream") / "report.pdf", report_pages(), header="Acme Climate Report 2023")


def stream_pages(path: Path, settings: IngestSettings, batch: int):
    with PdfReader(path, settings) as reader:
        batches = []
        while not reader.done:
            batches.append(reader.read(batch))
        doc, exact = reader.finish()
    return batches, doc, exact


@pytest.mark.parametrize("batch", [1, 2, 4])
def test_page_batches_are_the_whole_documents_pages_and_chunks(report, batch):
    settings = IngestSettings(chunk_chars=600, chunk_overlap=120)
    whole = parse_pdf(report, settings)
    batches, doc, exact = stream_pages(report, settings, batch)
    assert exact and [p for b in batches for p in b] == whole.pages == doc.pages
    assert doc == whole
    # The document has what a batch boundary could break: a table repaired across pages 3-4, chunks
    # spanning pages, no running header or page number left in the text.
    tables = [b.text for p in whole.pages for b in p.blocks if b.kind == "table"]
    assert len(tables) == 2 and all(t.startswith("| Site | Scope 1 (kt)") for t in tables)
    expected = chunk_document(whole, "ACME", settings)
    assert any(c.page_start != c.page_end for c in expected)
    assert not any("Acme Climate Report 2023" in c.text for c in expected)
    # Both pieces of the table open with its caption, also the one on the page it runs on to.
    table_chunks = [c for c in expected if c.has_table]
    assert len(table_chunks) == 2 and table_chunks[0].page_end == 3 and table_chunks[1].page_start == 4
    assert all(CAPTION in c.text and "| Site | Scope 1 (kt)" in c.text for c in table_chunks)

    stream = ChunkStream(doc.sha256, doc.file_name, "ACME", settings)
    fed = [stream.feed(b) for b in batches]
    last = stream.finish()
    assert [c for f in fed for c in f] + last == expected
    if batch < 4:
        assert sum(map(len, fed[:-1])) > 0  # chunks are handed out before the last page is read


def test_a_decision_only_the_whole_document_can_take_is_corrected(tmp_path):
    """Line-end hyphens are decided by the document's vocabulary without table cells; the batches
    assume it with them. Here a table holds "re-cover", so the batches keep "re-cover" in the text,
    and finish() says so and returns the whole document as parse_pdf reads it ("recover")."""
    rows = [[f"Site {i}", "re-cover", str(100 + i), str(40 + i)] for i in range(1, 6)]
    path = pf.make_pdf(tmp_path / "hyphen.pdf", [
        [("lines", ["The plan will re-", "cover the costs of closing the site."])],
        [("table", ["Site", "Plan", "Scope 1 (kt)", "Scope 2 (kt)"], rows)],
    ])
    settings = IngestSettings()
    batches, doc, exact = stream_pages(path, settings, 1)
    whole = parse_pdf(path, settings)
    assert not exact and doc == whole
    assert "re-cover the costs" in batches[0][0].blocks[0].text
    assert "recover the costs" in whole.pages[0].blocks[0].text


def test_the_ingest_stores_the_whole_documents_chunks_even_when_corrected(tmp_path, workspace):
    """End to end through the helper: what is stored is chunk_document(parse_pdf(file)), for a file
    streamed exactly and for one the whole document corrected."""
    rows = [[f"Site {i}", "re-cover", str(100 + i), str(40 + i)] for i in range(1, 6)]
    hyphen = pf.make_pdf(tmp_path / "hyphen.pdf", [
        [("lines", ["The plan will re-", "cover the costs of closing the site."])],
        [("table", ["Site", "Plan", "Scope 1 (kt)", "Scope 2 (kt)"], rows)],
    ])
    long = pf.make_pdf(tmp_path / "long.pdf", report_pages() * 6, header="Acme Climate Report 2023")
    from autofill.ingest.pipeline import ingest_paths
    from autofill.store.chroma_store import open_store

    settings = Settings(workspace=workspace)
    report = ingest_paths(settings, "ACME", [hyphen, long], embedder=FakeEmbedder())
    assert [f.status for f in report.files] == ["new", "new"]
    store = open_store(settings, "ACME")
    for path in (hyphen, long):
        expected = chunk_document(parse_pdf(path, settings.ingest), "ACME", settings.ingest)
        assert store.documents()[path.name].chunks == len(expected)
        stored = store.get_passages([c.id for c in expected])
        assert [p.text for p in stored] == [c.text for c in expected]
    assert store.chunk_count() == store._chunks.count()


def test_helper_messages_and_no_heavy_libraries(report):
    """The helper sends start, page batches, done; it was forked without the libraries this process
    holds (chromadb here), and parsing imports none of them."""
    import chromadb  # noqa: F401 - held by this process: a helper forked from it would hold it too

    parser = Parser([report], IngestSettings())
    try:
        messages = list(parser.stream(report))
    finally:
        parser.close()
    kinds = [m[0] for m in messages]
    assert kinds[0] == "start" and kinds[-1] == "done" and set(kinds[1:-1]) == {"pages"}
    assert messages[0][2] == 6 and sum(len(m[1]) for m in messages if m[0] == "pages") == 6
    _, doc, exact, warnings, seconds = messages[-1]
    assert exact and doc.pages == [] and doc.page_count == 6 and warnings == [] and seconds > 0
    assert parser.heavy == []

    code = textwrap.dedent(f'''
        import sys
        from pathlib import Path
        from autofill.ingest.parse_helper import HEAVY, stream_file
        from autofill.settings import IngestSettings
        kinds = [m[0] for m in stream_file(Path({str(report)!r}), IngestSettings())]
        assert kinds[-1] == "done", kinds
        print(",".join(m for m in HEAVY if m in sys.modules))
    ''')
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())})
    assert out.stdout.strip() == "", f"parsing imported {out.stdout.strip()}"


def test_a_bad_file_is_one_failed_message(tmp_path):
    bad = pf.make_corrupt_pdf(tmp_path / "bad.pdf")
    messages = list(stream_file(bad, IngestSettings()))
    assert [m[0] for m in messages] == ["failed"] and "corrupt" in messages[0][1]
