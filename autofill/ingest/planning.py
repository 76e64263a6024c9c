"""What an ingest will do, decided before anything is parsed: the chunking fingerprint recorded with each
document (a changed chunking, table or OCR setting rebuilds it), which files need parsing (unchanged
files, copies under another name and name clashes settled from the hashes), and the embedder the ingest
uses. Cost estimates (ingest --contextualize, batch plans) ask here exactly as ingest/pipeline.py does."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Sequence

from autofill.hashing import file_sha256
from autofill.ingest import chunking
from autofill.ingest.contextualize import context_fingerprint
from autofill.ingest.walk import expand_paths
from autofill.providers.factory import DEFAULT_EMBED_MODELS, embedder_name
from autofill.records import DocumentRecord, FileOutcome
from autofill.settings import IngestSettings, Settings


def ocr_engine_present() -> bool:
    """Whether Tesseract is installed (a PATH lookup, no import): part of the fingerprint, so installing
    it later re-reads documents whose image pages went unread."""
    return shutil.which("tesseract") is not None


def chunking_fingerprint(ingest: IngestSettings, context: str = "") -> str:
    """What, besides the file's bytes, decides a document's chunks: the chunking and table settings and
    the chunker's code version. Recorded per document (as paper-qa keys its index by the settings that
    built it), so a changed --chunk-chars, table or OCR setting (or Tesseract installed since) rebuilds the
    document instead of skipping it.
    min_page_chars is left out: it only counts pages without text, it changes no chunk. `context`: the
    contextualisation in use (ingest/contextualize.context_fingerprint; "" when off, leaving the
    fingerprints of stores built without it unchanged)."""
    knobs = {
        "chunker_version": chunking.CHUNKER_VERSION, "chunk_chars": ingest.chunk_chars,
        "chunk_overlap": ingest.chunk_overlap, "min_chunk_chars": ingest.min_chunk_chars,
        "extract_tables": ingest.extract_tables, "table_pages": ingest.table_pages,
        "ocr": ingest.ocr and [ocr_engine_present(), ingest.ocr_dpi, ingest.ocr_language, ingest.ocr_page_chars,
                               ingest.ocr_image_share],
    }
    if context:
        knobs["context"] = context
    return hashlib.sha256(json.dumps(knobs, sort_keys=True).encode()).hexdigest()[:16]


def plan_files(files: list[Path], known: dict[str, DocumentRecord], chunking: str,
               force: bool = False) -> tuple[list[tuple[Path, str]], list[FileOutcome]]:
    """Which files need parsing (with their hashes), decided before any parsing: unchanged files, files
    whose bytes are already stored under another name and name clashes within the run are settled here.
    Unchanged means the same bytes chunked with the same fingerprint; `force` re-ingests them anyway."""
    todo: list[tuple[Path, str]] = []
    outcomes: list[FileOutcome] = []
    names: dict[str, Path] = {}
    contents: dict[str, Path] = {}  # sha -> the file of this ingest that has it
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
        if sha in contents:  # a copy under another name (walking folders finds them)
            outcomes.append(FileOutcome(str(path), "skipped",
                                        error=f"same content as {contents[sha].name}, already in this ingest"))
            continue
        contents[sha] = path
        rec = known.get(path.name)
        twin = next((r for r in known.values() if r.sha256 == sha and r.file_name != path.name), None)
        if rec is not None and rec.sha256 == sha and rec.chunking == chunking and not force:
            outcomes.append(FileOutcome(str(path), "skipped", pages=rec.pages, chunks=rec.chunks,
                                        empty_pages=rec.empty_pages, warnings=list(rec.warnings),
                                        ocr_pages=rec.ocr_pages))
        elif twin is not None and (rec is None or rec.sha256 != sha):
            outcomes.append(FileOutcome(str(path), "skipped", pages=twin.pages, chunks=twin.chunks,
                                        empty_pages=twin.empty_pages, warnings=list(twin.warnings),
                                        error=f"same content as {twin.file_name}, already in the store"))
        else:
            todo.append((path, sha))
    return todo, outcomes


def files_to_parse(settings: Settings, documents: dict[str, DocumentRecord], paths: Sequence[Path | str],
                   force: bool = False, recursive: bool = True) -> list[Path]:
    """The files an ingest of `paths` into a store holding `documents` would parse, decided exactly as
    `ingest_paths` decides (`plan_files`), with the contextualisation the settings ask for: what cost
    estimates (ingest --contextualize, batch plans) count before anything is parsed."""
    chunking = chunking_fingerprint(settings.ingest, context_fingerprint(settings))
    todo, _outcomes = plan_files(expand_paths(paths, recursive=recursive).files, documents, chunking, force)
    return [path for path, _sha in todo]


def embedder_for(settings: Settings, recorded: str | None) -> str:
    """The embedder ("provider:model") an ingest uses. Not chosen (no --embedder, --embedding-model or
    embedding.* setting): the one the store was built with, or the default for a new store. Chosen: what
    was chosen, with the store's model when only the same provider was named; the caller refuses it when
    it differs from the store's."""
    chosen = settings.embedding
    if not recorded or not (chosen.provider or chosen.model):
        return recorded or embedder_name(settings)
    recorded_provider, _, recorded_model = recorded.partition(":")
    provider = chosen.provider or recorded_provider
    default = recorded_model if provider == recorded_provider else DEFAULT_EMBED_MODELS[provider]
    return f"{provider}:{chosen.model or default}"
