"""The ingest loop: files -> parse -> chunk -> embed -> store, one document at a time.

Incremental: a file whose bytes hash to what the store already holds under its name, chunked with the same
settings (chunking_fingerprint), is skipped before any parsing or embedding; a changed file, or one whose
chunking settings changed, replaces its old version (see CompanyStore.replace_document for why
readers never see a mix). Bad files (missing, not a PDF, encrypted, corrupt, empty, image-only) become one
failed FileOutcome each and the other files are still ingested. Damaged or partial files that still parse
are stored with warnings (ingest/damage.py). Folders are walked recursively (ingest/walk.py); what is
met there and not taken is listed in IngestReport.skipped_files.

Output: what happens is logged (`logging`, logger autofill.ingest.pipeline: one info line per stored
document, a warning per damaged one); progress is one bar per parsed file on the Reporter the caller
gives, counting the pages whose chunks are embedded, so it reaches its end only when the embedding has.

Speed: embedding dominates, so everything else hides behind it. The model loads in a background thread
while the first (shortest) file's first pages are parsed; a helper process parses the files page batch by
page batch, and each batch is chunked and embedded here while the helper parses the next one (one large
file overlaps as well as many; ingest/parse_helper.py, which also makes sure the helper dies with this
process). A document is stored whole, after its last batch."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

from autofill.errors import InputError
from autofill.frameworks.coverage import mapper_for
from autofill.ingest.chunking import ChunkStream, chunk_document
from autofill.frameworks.content_index import record as record_content_index
from autofill.ingest.contextualize import make_contextualizer
from autofill.ingest.parse_helper import CRASHED, Parser, stream_file
from autofill.ingest.period import detect_period
from autofill.ingest.planning import chunking_fingerprint, embedder_for, files_to_parse, plan_files
from autofill.language import document_language
from autofill.ingest.walk import expand_paths
from autofill.providers.factory import make_embedder
from autofill.records import Chunk, DocumentRecord, FileOutcome, IngestReport, PageContent, ParsedDocument
from autofill.reporting import Bar, Reporter, as_reporter
from autofill.settings import IngestSettings, Settings
from autofill.store.chroma_store import find_store, now_iso, open_store
from autofill.tempdirs import sweep

__all__ = ["chunking_fingerprint", "embedder_for", "expand_paths", "files_to_parse", "ingest_paths"]

log = logging.getLogger(__name__)

# Texts per embed_documents call: large enough for efficient batches inside the embedder, small enough
# for a progress bar that moves.
EMBED_CALL_SIZE = 128


@dataclass
class _Timer:
    parse: float = 0.0
    embed: float = 0.0
    store: float = 0.0


def _start_loading(embedder: Any) -> threading.Thread | None:
    """Load a local model in the background (it takes seconds) while the first file is parsed."""
    load = getattr(embedder, "load", None)
    if not callable(load):
        return None

    def run() -> None:
        with contextlib.suppress(Exception):  # a failure surfaces again, clearly, on the first embed
            load()

    thread = threading.Thread(target=run, name="embedder-load", daemon=True)
    thread.start()
    return thread


def _embed(embedder: Any, chunks: list[Chunk]) -> list[list[float]]:
    """Embed the chunks' texts, EMBED_CALL_SIZE at a time."""
    vectors: list[list[float]] = []
    texts = [c.embed_text for c in chunks]
    for start in range(0, len(texts), EMBED_CALL_SIZE):
        vectors.extend(embedder.embed_documents(texts[start:start + EMBED_CALL_SIZE]))
    if len(vectors) != len(chunks):
        raise RuntimeError(f"embedder returned {len(vectors)} vectors for {len(chunks)} chunks")
    return vectors


@dataclass
class _Embedded:
    """One file parsed, chunked and embedded, or why not."""

    doc: ParsedDocument | None = None
    chunks: list[Chunk] = field(default_factory=list)
    vectors: list[list[float]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str = ""


def _read_and_embed(messages: Iterator[tuple], path: Path, company: str, ingest: IngestSettings, embedder: Any,
                    progress: Reporter, label: str, loader: threading.Thread | None, timer: _Timer,
                    contextualizer: Any = None) -> _Embedded:
    """Chunk and embed one file's page batches as the parse helper sends them (parse_helper.py): the
    chunks are those of the whole document (ChunkStream), embedded while the helper parses on. The
    progress bar counts pages whose chunks are embedded.

    With a `contextualizer` (ingest --contextualize) the chunks are collected instead and embedded once
    the whole document is parsed and every chunk has its context line: the context is written from the
    document's opening and goes into the embedded text, and those model calls, not parsing, set the pace."""
    out = _Embedded()
    stream: ChunkStream | None = None
    pages: list[PageContent] = []
    bar: Bar | None = None

    def wait_for_model() -> None:
        if loader is not None and loader.is_alive():
            bar.note("loading the embedding model")
            loader.join()
            bar.note("embedding")

    def embed(chunks: list[Chunk], done_pages: int) -> None:
        t = time.perf_counter()
        if contextualizer is None:
            wait_for_model()
            out.vectors += _embed(embedder, chunks)
        out.chunks += chunks
        bar.advance(done_pages)
        timer.embed += time.perf_counter() - t

    try:
        for msg in messages:
            if msg[0] == "start":
                _, sha256, page_count = msg
                stream = ChunkStream(sha256, path.name, company, ingest)
                bar = progress.bar(label, total=page_count, unit="pages")
                bar.note("chunking" if contextualizer is not None else "embedding")
            elif msg[0] == "pages":
                pages += msg[1]
                embed(stream.feed(msg[1]), len(msg[1]))
            elif msg[0] == "failed":
                timer.parse += msg[2]
                return _Embedded(error=msg[1])
            else:  # "done"
                _, doc, exact, warnings, seconds = msg
                timer.parse += seconds
                embed(stream.finish(), 0)
                if exact:
                    doc = replace(doc, pages=pages)
                elif contextualizer is not None:  # nothing embedded yet: just chunk the whole document
                    out.chunks = chunk_document(doc, company, ingest)
                else:  # rare: the whole document decided otherwise than its first lines (pdf.PdfReader)
                    log.debug("%s: chunked again as a whole; re-embedding the chunks that changed", path.name)
                    known = dict(zip((c.embed_text for c in out.chunks), out.vectors))
                    chunks = chunk_document(doc, company, ingest)
                    missing = [c for c in chunks if c.embed_text not in known]
                    known.update(zip((c.embed_text for c in missing), _embed(embedder, missing)))
                    out.chunks, out.vectors = chunks, [known[c.embed_text] for c in chunks]
                if not out.chunks:
                    ocr_failed = [w for w in warnings if w.startswith("OCR skipped")]
                    why = ocr_failed[0] if ocr_failed else f"scanned images? OCR is {'on' if ingest.ocr else 'off'}"
                    return _Embedded(error=f"no extractable text on any of its {doc.page_count} pages ({why})")
                if contextualizer is not None:  # a model-written context line per chunk, before embedding
                    out.chunks = contextualizer(doc, out.chunks)
                    t = time.perf_counter()
                    bar.note("embedding")
                    wait_for_model()
                    out.vectors = _embed(embedder, out.chunks)
                    timer.embed += time.perf_counter() - t
                out.doc, out.warnings = doc, list(warnings)
                return out
        return _Embedded(error=STOPPED)
    finally:
        if bar is not None:
            bar.close()


STOPPED = "the PDF parser stopped without finishing this file"


def transient(error: str) -> bool:
    """A failure that says nothing about the file (the parse helper killed or gone, memory running out):
    worth one more try before the file is reported failed."""
    return error.startswith((CRASHED, STOPPED)) or "MemoryError" in error or "OCR skipped" in error


def _once_more(path: Path, error: str, company: str, ingest: IngestSettings, embedder: Any, progress: Reporter,
               label: str, loader: threading.Thread | None, timer: _Timer, contextualizer: Any) -> _Embedded:
    """Parse `path` again in a helper of its own (the ingest's helper has moved on to the next file)."""
    log.warning("%s: %s; trying it once more", path.name, error)
    again = Parser([path], ingest)
    try:
        done = _read_and_embed(again.stream(path), path, company, ingest, embedder, progress, label, loader,
                               timer, contextualizer)
    finally:
        again.close()
    if done.error:
        done.error = f"{done.error} (tried twice; first: {error})" if done.error != error else \
            f"{done.error} (tried twice)"
    return done


def file_line(outcome: FileOutcome) -> str:
    """One file's result in words: "new      a.pdf: 30 pages (19 without text), 22 chunks"."""
    name = Path(outcome.path).name
    if outcome.status == "failed":
        return f"failed   {outcome.path}: {outcome.error}"
    empty = f" ({outcome.empty_pages} without text)" if outcome.empty_pages else ""
    empty += f" ({outcome.ocr_pages} read by OCR)" if outcome.ocr_pages else ""
    status = "unchanged" if outcome.status == "skipped" else outcome.status
    line = f"{status:<8} {name}: {outcome.pages} pages{empty}, {outcome.chunks} chunks"
    if outcome.warnings:
        line += " -- may be incomplete: " + "; ".join(outcome.warnings)
    return line


def ingest_paths(settings: Settings, company: str, paths: Sequence[Path | str], reporter: Reporter | None = None,
                 embedder: Any = None, force: bool = False, recursive: bool = True,
                 contextualizer: Any = None, embedded: dict[tuple[str, str], Any] | None = None) -> IngestReport:
    """Ingest PDF files and folders into `company`'s evidence store; see the module docstring. `force`:
    parse, chunk and embed again even files the store holds unchanged (same bytes, same chunking).
    `recursive`: walk subfolders of the folders given (else list them as skipped). `contextualizer`: the
    `ingest.contextualize` hook (ingest/contextualize.py; made from the settings when not given).
    `embedded`: files already parsed, chunked and embedded elsewhere (`embed_file` on other workers,
    keyed by (path, sha256), made with this ingest's chunking and embedder): stored as they are.

    Timings: parse seconds are summed over files parsed in a helper process while earlier files are
    embedded, so parse + embed + store can exceed the wall-clock `seconds`."""
    started = time.perf_counter()
    progress = as_reporter(reporter)
    company = company.strip()
    if not company:
        raise InputError("--company must not be empty")
    found = expand_paths(paths, recursive=recursive)
    files, outcomes = found.files, list(found.failed)
    for skipped in found.skipped:
        log.debug("skipped %s: %s", skipped.path, skipped.reason)
    timer = _Timer()
    # Half-written keyword indexes of an ingest killed mid-save (BM25Index.save also does this).
    sweep(settings.vectordb_dir / "bm25", legacy=lambda name: True)

    try:
        store = find_store(settings, company)  # None: made when the first document is ready to be stored
    except InputError:
        store = None
    if embedder is None:
        name = embedder_for(settings, store.embedder_name if store is not None else None)
        if store is not None:
            store.check_embedder(name)  # before building the embedder: no model load, no API client
        embedder = make_embedder(settings, name)
    if store is not None:
        store.check_embedder(embedder.name)
    if contextualizer is None:
        contextualizer = make_contextualizer(settings, reporter=progress)  # None unless ingest.contextualize
    chunking = chunking_fingerprint(settings.ingest, contextualizer.fingerprint if contextualizer else "")
    known = store.documents() if store is not None else {}
    todo, planned = plan_files(files, known, chunking, force)
    outcomes += planned
    for outcome in planned:
        if outcome.warnings:  # stored earlier with warnings, and still the same file
            log.warning(file_line(outcome))

    # Smallest file first: only the first file's parsing cannot overlap with embedding (it overlaps with
    # loading the model instead), so it should be the quickest. Outcomes are reported in input order.
    todo.sort(key=lambda item: item[0].stat().st_size)
    loader = _start_loading(embedder) if todo else None
    log.debug("parsing %d file(s) in a helper process while embedding", len(todo))
    embedded = embedded or {}
    parser = Parser([p for p, sha in todo if (str(p), sha) not in embedded], settings.ingest)
    changed = False
    try:
        with contextlib.ExitStack() as stack:
            if store is not None and todo:
                stack.enter_context(store.writing())
            for number, (path, _sha) in enumerate(todo, start=1):
                log.debug("parsing %s", path)
                label = f"[{number}/{len(todo)}] {path.name}" if len(todo) > 1 else path.name
                done = embedded.get((str(path), _sha))
                if done is None:
                    done = _read_and_embed(parser.stream(path), path, company, settings.ingest, embedder,
                                           progress, label, loader, timer, contextualizer)
                    if done.error and transient(done.error):
                        done = _once_more(path, done.error, company, settings.ingest, embedder, progress, label,
                                          loader, timer, contextualizer)
                if done.error:
                    outcome = FileOutcome(str(path), "failed", error=done.error)
                    outcomes.append(outcome)
                    log.debug(file_line(outcome))  # the CLI lists failures with the summary
                    continue
                t = time.perf_counter()
                if store is None:
                    store = open_store(settings, company, create=True, embedder=embedder.name)
                    store.check_embedder(embedder.name)
                    stack.enter_context(store.writing())
                outcomes.append(store_document(store, path, done, known, chunking))
                changed = True
                timer.store += time.perf_counter() - t

            if store is not None and changed:
                t = time.perf_counter()
                log.debug("rebuilding the keyword index")
                store.rebuild_bm25()
                timer.store += time.perf_counter() - t
    finally:
        parser.close()

    order = {str(Path(p)): i for i, p in enumerate(paths)}
    walked = {str(p): i for i, p in enumerate(files)}
    outcomes.sort(key=lambda o: (*_input_position(o.path, order, paths), walked.get(o.path, -1)))
    return IngestReport(
        company=store.company if store is not None else company,
        files=outcomes,
        seconds=time.perf_counter() - started,
        timings={"parse": round(timer.parse, 3), "embed": round(timer.embed, 3), "store": round(timer.store, 3)},
        skipped_files=found.skipped,
        usage=contextualizer.meter.snapshot() if contextualizer is not None else {},
    )


def store_document(store: Any, path: Path, done: _Embedded, known: dict[str, DocumentRecord],
                   chunking: str) -> FileOutcome:
    """Store one parsed and embedded file (inside `store.writing()`) and log what happened. All of the
    document at once, after its last batch: readers never see half of it; a file stored again (a retried
    worker, a resumed ingest) replaces itself, never adds a second copy."""
    doc, chunks = done.doc, done.chunks
    status = "replaced" if path.name in known else "new"
    record = DocumentRecord(
        file_name=path.name, sha256=doc.sha256, pages=doc.page_count, chunks=len(chunks),
        empty_pages=len(doc.empty_pages), ocr_pages=len(doc.ocr_pages), ingested_at=now_iso(),
        source_path=str(path.resolve()), chunking=chunking, period=detect_period(doc),
        warnings=list(done.warnings), language=document_language(doc),
    )
    store.replace_document(record, chunks, done.vectors)

    # the report's own GRI / ESRS / TCFD index: which pages it names per requirement
    record_content_index(store, path.name, chunks, mapper_for(store.settings).quoted, doc.page_count)
    store.touch()  # per document: an interrupted ingest still dates what it stored
    outcome = FileOutcome(str(path), status, pages=doc.page_count, chunks=len(chunks),
                          empty_pages=len(doc.empty_pages), warnings=list(done.warnings),
                          ocr_pages=len(doc.ocr_pages))
    log.log(logging.WARNING if outcome.warnings else logging.INFO, "%s", file_line(outcome))
    return outcome


def embed_file(path: Path, company: str, ingest: IngestSettings, embedder: Any) -> _Embedded:
    """Parse, chunk and embed one file in this process (no parse helper, no contextualising, no progress):
    the unit of work a distributed ingest (portfolio/ray_engine.py) runs per document; `store_document`
    stores what it returns. Bad files come back with `error` set, as from `ingest_paths`."""
    return _read_and_embed(stream_file(path, ingest), path, company, ingest, embedder, as_reporter(None),
                           path.name, None, _Timer())


def _input_position(path: str, order: dict[str, int], paths: Sequence[Path | str]) -> tuple[int]:
    """Report files in the order they were given (files of a folder under the folder's position, in
    the order the folder was walked)."""
    if path in order:
        return (order[path],)
    p = Path(path)
    for i, raw in enumerate(paths):
        if p.is_relative_to(Path(raw)):
            return (i,)
    return (len(paths),)
