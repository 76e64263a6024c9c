"""The ingest loop: files -> parse -> chunk -> embed -> store, one document at a time.

Incremental: a file whose bytes hash to what the store already holds under its name, chunked with the same
settings (chunking_fingerprint), is skipped before any parsing or embedding; a changed file, or one whose
chunking settings changed, replaces its old version (see CompanyStore.replace_document for why
readers never see a mix). Bad files (missing, not a PDF, encrypted, corrupt, empty, image-only) become one
failed FileOutcome each and the other files are still ingested.

Speed: embedding dominates, so everything else hides behind it. The model loads in a background thread
while the first (shortest) file is parsed, and the other files are parsed by a helper process while this
one embeds (see _Parser)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from autofill.errors import InputError
from autofill.ingest.period import detect_period
from autofill.records import Chunk, DocumentRecord, FileOutcome, IngestReport
from autofill.settings import IngestSettings, Settings
from autofill.hashing import file_sha256

# Texts per embed_documents call: large enough for efficient batches inside the embedder, small enough
# for a progress bar that moves.
EMBED_CALL_SIZE = 128




def expand_paths(paths: Sequence[Path | str]) -> tuple[list[Path], list[FileOutcome]]:
    """PDF files to ingest (folders expanded to their *.pdf, sorted; duplicates dropped) and one failed
    outcome per path that is missing or not a PDF."""
    files: list[Path] = []
    failed: list[FileOutcome] = []
    seen: set[Path] = set()

    def add(p: Path) -> None:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            files.append(p)

    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if q.is_file() and q.suffix.lower() == ".pdf")
            if not found:
                failed.append(FileOutcome(str(p), "failed", error="folder contains no PDF files"))
            for q in found:
                add(q)
        elif not p.exists():
            failed.append(FileOutcome(str(p), "failed", error="no such file or folder"))
        elif not p.is_file():
            failed.append(FileOutcome(str(p), "failed", error="not a regular file"))
        elif p.suffix.lower() != ".pdf":
            failed.append(FileOutcome(str(p), "failed", error="not a PDF file (expected a .pdf report)"))
        else:
            add(p)
    return files, failed


@dataclass
class _Timer:
    parse: float = 0.0
    embed: float = 0.0
    store: float = 0.0


class _Progress:
    """A click progress bar over the pages of the files being ingested, on stderr; silent when disabled."""

    def __init__(self, enabled: bool, total_pages: int):
        self.enabled = enabled
        self.label = ""
        self._bar: Any = None
        if enabled and total_pages:
            import click

            self._bar = click.progressbar(length=total_pages, label="Ingesting", file=sys.stderr,
                                          item_show_func=lambda _: self.label, show_pos=True)
            self._bar.__enter__()

    def status(self, label: str) -> None:
        self.label = label
        if self._bar is not None:
            self._bar.update(0)

    def advance(self, pages: int) -> None:
        if self._bar is not None:
            self._bar.update(pages)

    def line(self, text: str) -> None:
        if self.enabled:
            import click

            if self._bar is not None:
                click.echo("", err=True)
            click.echo(text, err=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


def _page_count(path: Path) -> int:
    """Pages of a PDF for the progress bar only; 0 when it cannot be opened (parse_pdf reports why)."""
    try:
        import pymupdf

        with pymupdf.open(str(path)) as doc:
            return doc.page_count
    except Exception:  # noqa: BLE001 - the real error comes from parse_pdf
        return 0


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


def _embed(embedder: Any, chunks: list[Chunk], progress: _Progress, file_label: str, pages: int) -> list[list[float]]:
    """Embed the chunks' texts; the bar moves through the file's pages as its chunks are embedded."""
    vectors: list[list[float]] = []
    texts = [c.embed_text for c in chunks]
    moved = 0
    for start in range(0, len(texts), EMBED_CALL_SIZE):
        progress.status(f"{file_label}: embedding {start}/{len(texts)} chunks")
        vectors.extend(embedder.embed_documents(texts[start:start + EMBED_CALL_SIZE]))
        step = pages * len(vectors) // len(texts) - moved
        progress.advance(step)
        moved += step
    if len(vectors) != len(chunks):
        raise RuntimeError(f"embedder returned {len(vectors)} vectors for {len(chunks)} chunks")
    return vectors


@dataclass
class _Parsed:
    doc: Any = None
    chunks: list[Chunk] | None = None
    error: str = ""
    seconds: float = 0.0


def _parse_one(path: Path, company: str, ingest: IngestSettings) -> _Parsed:
    """Parse and chunk one file; a bad file becomes an error message, never an exception."""
    from autofill.ingest.chunking import chunk_document
    from autofill.ingest.pdf import parse_pdf

    t = time.perf_counter()
    try:
        doc = parse_pdf(path, ingest)
        chunks = chunk_document(doc, company, ingest)
        if not chunks:
            raise InputError(f"no extractable text on any of its {doc.page_count} pages "
                             f"(scanned images? OCR is not supported)")
        return _Parsed(doc, chunks, seconds=time.perf_counter() - t)
    except InputError as exc:
        return _Parsed(error=str(exc), seconds=time.perf_counter() - t)
    except Exception as exc:  # noqa: BLE001 - a parser crash on one odd file must not stop the others
        return _Parsed(error=f"could not be parsed ({type(exc).__name__}: {exc})", seconds=time.perf_counter() - t)


class _Parser:
    """Parses files ahead of the embedder. With several files, all are queued at once to one helper
    process, which works through them while this process loads the model and embeds; a single file is
    parsed here while the model loads in a thread. A process, not a thread: parsing is Python-heavy and a
    parse thread holding the GIL slowed the embedder's many small torch calls badly; the parser's own
    models (PyMuPDF layout, ONNX) then never share this process's memory with torch (peak RSS ~1.1 GB
    -> ~0.8 GB here plus ~0.4 GB there); and a parser crash on a hostile PDF only fails that file."""

    def __init__(self, paths: list[Path], company: str, ingest: IngestSettings):
        self.company, self.ingest = company, ingest
        self._futures: dict[Path, Any] = {}
        self._pool: Any = None
        if len(paths) > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # forkserver: workers are forked from a clean server process, never from this one with its
            # torch and Chroma threads; spawn where forkserver is unavailable (Windows).
            method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context(method))
            for path in paths:
                self._futures[path] = self._pool.submit(_parse_one, path, company, ingest)

    def parse(self, path: Path) -> _Parsed:
        future = self._futures.pop(path, None)
        if future is None:
            return _parse_one(path, self.company, self.ingest)
        try:
            return future.result()
        except Exception as exc:  # noqa: BLE001 - the helper died: this file is the one it was parsing
            for other in list(self._futures):  # the rest are parsed here instead
                self._futures.pop(other).cancel()
            return _Parsed(error=f"the PDF parser crashed on this file ({type(exc).__name__})")

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


def chunking_fingerprint(ingest: IngestSettings) -> str:
    """What, besides the file's bytes, decides a document's chunks: the chunking and table settings and
    the chunker's code version. Recorded per document (as paper-qa keys its index by the settings that
    built it), so a changed --chunk-chars or table setting rebuilds the document instead of skipping it.
    min_page_chars is left out: it only counts pages without text, it changes no chunk."""
    from autofill.ingest.chunking import CHUNKER_VERSION

    knobs = {
        "chunker_version": CHUNKER_VERSION, "chunk_chars": ingest.chunk_chars,
        "chunk_overlap": ingest.chunk_overlap, "min_chunk_chars": ingest.min_chunk_chars,
        "extract_tables": ingest.extract_tables, "table_pages": ingest.table_pages,
    }
    return hashlib.sha256(json.dumps(knobs, sort_keys=True).encode()).hexdigest()[:16]


def _plan(files: list[Path], known: dict[str, DocumentRecord], chunking: str,
          force: bool = False) -> tuple[list[tuple[Path, str]], list[FileOutcome]]:
    """Which files need parsing (with their hashes), decided before any parsing: unchanged files, files
    whose bytes are already stored under another name and name clashes within the run are settled here.
    Unchanged means the same bytes chunked with the same fingerprint; `force` re-ingests them anyway."""
    todo: list[tuple[Path, str]] = []
    outcomes: list[FileOutcome] = []
    names: dict[str, Path] = {}
    for path in files:
        if path.name in names:
            outcomes.append(FileOutcome(str(path), "failed",
                                        error=f"another file named {path.name} is in this ingest ({names[path.name]})"))
            continue
        names[path.name] = path
        try:
            sha = file_sha256(path)
        except OSError as exc:
            outcomes.append(FileOutcome(str(path), "failed", error=f"cannot read file: {exc.strerror or exc}"))
            continue
        rec = known.get(path.name)
        twin = next((r for r in known.values() if r.sha256 == sha and r.file_name != path.name), None)
        if rec is not None and rec.sha256 == sha and rec.chunking == chunking and not force:
            outcomes.append(FileOutcome(str(path), "skipped", pages=rec.pages, chunks=rec.chunks,
                                        empty_pages=rec.empty_pages))
        elif twin is not None and (rec is None or rec.sha256 != sha):
            outcomes.append(FileOutcome(str(path), "skipped", pages=twin.pages, chunks=twin.chunks,
                                        empty_pages=twin.empty_pages,
                                        error=f"same content as {twin.file_name}, already in the store"))
        else:
            todo.append((path, sha))
    return todo, outcomes


def embedder_for(settings: Settings, recorded: str | None) -> str:
    """The embedder ("provider:model") an ingest uses. Not chosen (no --embedder, --embedding-model or
    embedding.* setting): the one the store was built with, or the default for a new store. Chosen: what
    was chosen, with the store's model when only the same provider was named; the caller refuses it when
    it differs from the store's."""
    from autofill.providers.factory import DEFAULT_EMBED_MODELS, embedder_name

    chosen = settings.embedding
    if not recorded or not (chosen.provider or chosen.model):
        return recorded or embedder_name(settings)
    recorded_provider, _, recorded_model = recorded.partition(":")
    provider = chosen.provider or recorded_provider
    default = recorded_model if provider == recorded_provider else DEFAULT_EMBED_MODELS[provider]
    return f"{provider}:{chosen.model or default}"


def ingest_paths(settings: Settings, company: str, paths: Sequence[Path | str], progress: bool = False,
                 embedder: Any = None, force: bool = False) -> IngestReport:
    """Ingest PDF files and folders into `company`'s evidence store; see the module docstring. `force`:
    parse, chunk and embed again even files the store holds unchanged (same bytes, same chunking).

    Timings: parse seconds are summed over files parsed in a helper process while earlier files are
    embedded, so parse + embed + store can exceed the wall-clock `seconds`."""
    from autofill.store.chroma_store import find_store, now_iso, open_store

    started = time.perf_counter()
    company = company.strip()
    if not company:
        raise InputError("--company must not be empty")
    files, outcomes = expand_paths(paths)
    timer = _Timer()

    try:
        store = find_store(settings, company)  # None: made when the first document is ready to be stored
    except InputError:
        store = None
    if embedder is None:
        from autofill.providers.factory import make_embedder

        name = embedder_for(settings, store.embedder_name if store is not None else None)
        if store is not None:
            store.check_embedder(name)  # before building the embedder: no model load, no API client
        embedder = make_embedder(settings, name)
    if store is not None:
        store.check_embedder(embedder.name)
    chunking = chunking_fingerprint(settings.ingest)
    known = store.documents() if store is not None else {}
    todo, planned = _plan(files, known, chunking, force)
    outcomes += planned

    # Smallest file first: only the first file's parsing cannot overlap with embedding (it overlaps with
    # loading the model instead), so it should be the quickest. Outcomes are reported in input order.
    todo.sort(key=lambda item: item[0].stat().st_size)
    loader = _start_loading(embedder) if todo else None
    parser = _Parser([p for p, _ in todo], company, settings.ingest)
    # Page counts only feed the progress bar; without one this process need not even import PyMuPDF.
    pages = {p: _page_count(p) if progress else 0 for p, _ in todo}
    bar = _Progress(progress, sum(pages.values()))
    changed = False
    try:
        with contextlib.ExitStack() as stack:
            if store is not None and todo:
                stack.enter_context(store.writing())
            for path, _sha in todo:
                bar.status(f"{path.name}: parsing")
                parsed = parser.parse(path)
                timer.parse += parsed.seconds
                if parsed.error:
                    outcomes.append(FileOutcome(str(path), "failed", error=parsed.error))
                    bar.advance(pages[path])  # the CLI prints failures after the bar
                    continue
                doc, chunks = parsed.doc, parsed.chunks

                t = time.perf_counter()
                if loader is not None:
                    loader.join()
                    loader = None
                vectors = _embed(embedder, chunks, bar, path.name, pages[path])
                timer.embed += time.perf_counter() - t

                t = time.perf_counter()
                if store is None:
                    store = open_store(settings, company, create=True, embedder=embedder.name)
                    store.check_embedder(embedder.name)
                    stack.enter_context(store.writing())
                status = "replaced" if path.name in known else "new"
                record = DocumentRecord(
                    file_name=path.name, sha256=doc.sha256, pages=doc.page_count, chunks=len(chunks),
                    empty_pages=len(doc.empty_pages),
                    ingested_at=now_iso(),
                    source_path=str(path.resolve()), chunking=chunking, period=detect_period(doc),
                )
                store.replace_document(record, chunks, vectors)
                store.touch()  # per document: an interrupted ingest still dates what it stored
                changed = True
                timer.store += time.perf_counter() - t
                outcomes.append(FileOutcome(str(path), status, pages=doc.page_count, chunks=len(chunks),
                                            empty_pages=len(doc.empty_pages)))
                empty = f" ({len(doc.empty_pages)} without text)" if doc.empty_pages else ""
                bar.line(f"  {status:<8} {path.name}: {doc.page_count} pages{empty}, {len(chunks)} chunks")

            if store is not None and changed:
                t = time.perf_counter()
                store.rebuild_bm25()
                timer.store += time.perf_counter() - t
    finally:
        parser.close()
        bar.close()

    order = {str(Path(p)): i for i, p in enumerate(paths)}
    outcomes.sort(key=lambda o: _input_position(o.path, order, paths))
    return IngestReport(
        company=store.company if store is not None else company,
        files=outcomes,
        seconds=time.perf_counter() - started,
        timings={"parse": round(timer.parse, 3), "embed": round(timer.embed, 3), "store": round(timer.store, 3)},
    )


def _input_position(path: str, order: dict[str, int], paths: Sequence[Path | str]) -> tuple[int, str]:
    """Report files in the order they were given (files of a folder under the folder's position)."""
    if path in order:
        return order[path], path
    p = Path(path)
    for i, raw in enumerate(paths):
        if p.parent == Path(raw):
            return i, path
    return len(paths), path
