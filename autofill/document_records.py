"""Typed records of ingestion, passed between its stages and read by every later one: a PDF's blocks and
pages (ParsedDocument) -> Chunk -> the store's DocumentRecord, and each file's outcome. Kept free of I/O.
`records.py` exports them too, beside the answering records."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Block:
    """One piece of a page in reading order."""

    kind: str  # "heading", "text" or "table" (table text is Markdown)
    text: str
    level: int = 0  # heading level (1 = top); 0 for text and tables
    ocr: bool = False  # read by OCR from an image (a scanned page, a chart), not from the text layer


@dataclass
class PageContent:
    page: int  # 1-based PDF page index, whatever number is printed on the page
    blocks: list[Block] = field(default_factory=list)
    label: str = ""  # the number printed on the page (the PDF's page label or a detected folio); "" unknown

    @property
    def ocr(self) -> bool:
        return any(b.ocr for b in self.blocks)

    @property
    def char_count(self) -> int:
        return sum(len(b.text) for b in self.blocks)


@dataclass
class ParsedDocument:
    path: Path
    file_name: str  # the name chunks cite, e.g. "BHP Climate Change Report 2020.pdf"
    sha256: str  # of the file's bytes: unchanged hash -> skip on re-ingest
    pages: list[PageContent]
    page_count: int
    empty_pages: list[int] = field(default_factory=list)  # pages with no extractable text
    title: str = ""

    @property
    def ocr_pages(self) -> list[int]:
        """Pages with text read by OCR."""
        return [p.page for p in self.pages if p.ocr]


@dataclass(frozen=True)
class Chunk:
    id: str  # deterministic: company, file hash and chunk index
    company: str
    file_name: str
    doc_sha256: str
    page_start: int
    page_end: int
    section: str  # section path, "Climate strategy > Targets"
    index: int  # position of the chunk within its document
    has_table: bool
    text: str  # the passage as shown to reviewers and models
    content_hash: str
    ocr: bool = False  # some of the text was read by OCR from an image
    page_labels: tuple[str, ...] = ()  # printed page number of each page page_start..page_end ("" unknown)
    # A model-written line situating the chunk in its document (ingest/contextualize.py, off by default):
    # embedded and BM25-indexed with the chunk, never shown as the passage. "" when not contextualised.
    context: str = ""

    @property
    def page_label(self) -> str:
        return self.page_labels[0] if self.page_labels else ""

    @property
    def embed_text(self) -> str:
        """What is embedded: the section path (what the passage is about, in the report's own headings),
        the model-written context line when there is one, then the passage. The company, file name and page
        (embedded before issue 27) are left out: the same in every chunk of a document, they only dilute the
        vector (page recall@6 on the development sets: docs/BENCHMARKS.md, "How good and how fast")."""
        return "\n".join(part for part in (self.section, self.context, self.text) if part)


@dataclass
class DocumentRecord:
    """A document as the store knows it."""

    file_name: str
    sha256: str
    pages: int
    chunks: int
    empty_pages: int
    ingested_at: str
    source_path: str = ""  # where the PDF was ingested from; the review report renders its pages
    # Fingerprint of the chunking settings and code that built its chunks; unchanged bytes with another
    # fingerprint are chunked again. "" for records written before it existed (rebuilt on next ingest).
    chunking: str = ""
    ocr_pages: int = 0  # pages with text read by OCR
    # Reporting period detected at ingest ("FY2022", "2023"); "" when none was found (ingest/period.py).
    period: str = ""
    # Why this document may be incomplete (damaged file, missing pages, mostly pages without text), in
    # plain words; empty for a sound one. Stored in the manifest as a JSON string (Chroma metadata is scalar).
    warnings: list[str] = field(default_factory=list)
    # Its language (ISO 639-1, autofill/language.py), detected at ingest; "" when unknown or stored before.
    language: str = ""


@dataclass
class StoreInfo:
    company: str
    collection: str
    embedder: str
    documents: list[DocumentRecord]
    last_ingest: str
    embedder_runtime: str = ""  # local embedder: "onnx" or "torch" (how the store's vectors were made)

    @property
    def pages(self) -> int:
        return sum(d.pages for d in self.documents)

    @property
    def chunks(self) -> int:
        return sum(d.chunks for d in self.documents)


@dataclass
class FileOutcome:
    path: str
    status: str  # "new", "replaced", "skipped" or "failed"
    pages: int = 0
    chunks: int = 0
    empty_pages: int = 0
    error: str = ""
    warnings: list[str] = field(default_factory=list)  # stored, but may be incomplete (see ingest/damage.py)
    ocr_pages: int = 0


@dataclass(frozen=True)
class SkippedFile:
    """A file met while walking a folder that was not ingested, and why (not a PDF, hidden, unreadable,
    a duplicate of another path)."""

    path: str
    reason: str
