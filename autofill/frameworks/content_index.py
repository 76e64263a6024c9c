"""A report's own map: the content index many reports print (GRI, ESRS, TCFD, SASB), naming for each
requirement the pages that answer it. Read from a document's chunks at ingest (tables come as Markdown
rows: "| GRI 305-1 | Direct (Scope 1) GHG emissions | 45, 47 |") and stored per document in
`vectordb/.content-index/<collection>.json` as {file name: {requirement id: [PDF pages]}}; printed page
numbers are turned into PDF pages with the document's page labels.

Only cells made of page references count (a description's "Scope 1" is not page 1), a code must be one
the catalogue knows (autofill/frameworks), and an index without page numbers (a list of topics) gives
nothing. `pointed_pages` is what a run asks: the pages the company's reports name for the requirements of
the datapoints a row asks for. Pure apart from `record` / `pointed_pages`, which read and write the JSON."""

from __future__ import annotations

import json
import logging
import re
from typing import Iterable, Sequence
from autofill.fileio import atomic_write_bytes
from autofill.frameworks.catalogue import load_catalogue
from autofill.frameworks.mapping import Mapper
from autofill.store import derived

log = logging.getLogger(__name__)

_PAGES_CELL = re.compile(r"^(?:pp?\.?\s*|pages?\s*)?\d{1,4}(?:\s*[-–]\s*\d{1,4})?(?:\s*[,;&]\s*(?:pp?\.?\s*)?\d{1,4}"
                         r"(?:\s*[-–]\s*\d{1,4})?)*$", re.IGNORECASE)
_RANGE = re.compile(r"(\d{1,4})(?:\s*[-–]\s*(\d{1,4}))?")
_INDEX_WORDS = re.compile(r"\b(content index|gri index|esrs index|tcfd index|sasb index|index of disclosures|"
                          r"disclosure index|tcfd (recommendations|disclosures)|cross[- ]reference)", re.IGNORECASE)
_TRAILING = re.compile(r"^(.*?[^\d\s,;&–-])\s+((?:pp?\.?\s*)?\d{1,4}(?:\s*[-–]\s*\d{1,4})?"
                       r"(?:\s*[,;&]\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?)*)$", re.IGNORECASE)
MAX_RANGE = 30  # "12-140" is not a page range an index names


def page_refs(cell: str) -> list[str]:
    """The printed page numbers a cell of page references names ("45, 47-48" -> 45, 47, 48); [] else."""
    cell = cell.strip()
    if not cell or not _PAGES_CELL.match(cell):
        return []
    out: list[str] = []
    for a, b in _RANGE.findall(cell):
        lo, hi = int(a), int(b or a)
        if hi < lo or hi - lo > MAX_RANGE:
            hi = lo
        out += [str(p) for p in range(lo, hi + 1) if str(p) not in out]
    return out


def read_index(chunks: Sequence, quotes, pdf_pages: int = 0) -> dict[str, list[int]]:
    """{requirement id: [PDF pages]} from the index rows of a document's chunks. `quotes` is the
    frameworks mapper's code patterns (Mapper.quoted)."""
    labels: dict[str, int] = {}
    for c in chunks:
        for i, label in enumerate(getattr(c, "page_labels", ()) or ()):
            if label:
                labels.setdefault(str(label), c.page_start + i)
    out: dict[str, list[int]] = {}
    for c in chunks:
        if not (_INDEX_WORDS.search(c.section or "") or _INDEX_WORDS.search(c.text[:400])):
            continue
        for line in c.text.splitlines():
            if "|" in line:
                cells = [x.strip() for x in line.strip().strip("|").split("|")]
            else:  # a table read as text: "GRI 305-1 Direct (Scope 1) GHG emissions 45, 47"
                m = _TRAILING.match(line.strip())
                cells = [m.group(1), m.group(2)] if m else [line]
            code_cells = [x for x in cells if not page_refs(x)]
            reqs = quotes(" ".join(code_cells[:2])) if code_cells else []
            pages = [p for x in cells for p in page_refs(x)]
            if not reqs or not pages:
                continue
            found = [labels.get(p) or (int(p) if not labels and (not pdf_pages or int(p) <= pdf_pages) else None)
                     for p in pages]
            for r in reqs:
                have = out.setdefault(r.id, [])
                have += [p for p in found if p and p not in have]
    return {k: v for k, v in out.items() if v}


def _path(settings, collection: str):

    return derived.content_index(settings.vectordb_dir, collection)


_READ: dict[str, tuple[tuple[int, int], dict]] = {}  # path -> ((mtime_ns, size), index) for readers


def load(settings, collection: str) -> dict[str, dict[str, list[int]]]:
    """The company's indexes for reading (every row of a run asks): parsed once per version of the file,
    a stat per call after that. Not to be changed: `record` and `drop_document` read their own copy."""
    path = _path(settings, collection)
    try:
        st = path.stat()
    except OSError:
        return {}
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _READ.get(str(path))
    if cached is None or cached[0] != stamp:
        cached = (stamp, _load(settings, collection))
        _READ[str(path)] = cached
    return cached[1]


def _valid(data) -> bool:
    """{file name: {requirement id: [page numbers]}}, as `record` writes it."""
    return isinstance(data, dict) and all(
        isinstance(f, str) and isinstance(index, dict) and all(
            isinstance(r, str) and isinstance(pages, list) and all(type(p) is int for p in pages)
            for r, pages in index.items()) for f, index in data.items())


def _load(settings, collection: str) -> dict[str, dict[str, list[int]]]:
    """The file's indexes; a damaged file (cut short, not JSON, not the shape `record` writes) is said
    once, naming it, and rebuilt from the store's chunks (`rebuild`): it never fails a row."""
    path = _path(settings, collection)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if _valid(data):
            return data
        problem = "not a content index"
    except (OSError, ValueError) as exc:
        problem = f"{type(exc).__name__}: {str(exc)[:100]}"
    log.warning("the content index %s was damaged (%s); rebuilding it from the store", path, problem)
    try:
        return rebuild(settings, collection)
    except Exception as exc:  # noqa: BLE001 - an aid to retrieval: without it rows are searched as before
        log.warning("the content index %s could not be rebuilt (%s: %s); rows are searched without it",
                    path, type(exc).__name__, exc)
        return {}


def rebuild(settings, collection: str) -> dict[str, dict[str, list[int]]]:
    """The company's content indexes read again from the current chunks of every document in its store
    (as the ingest read them: `read_index` with the frameworks mapper's codes), written in place."""
    from pathlib import Path
    from types import SimpleNamespace

    from autofill.store import chroma_client as cc

    client = cc.make_client(settings)
    chunks_col, docs_col = cc.get_collection(client, collection), cc.get_collection(client, collection + cc.DOCS_SUFFIX)
    data: dict[str, dict[str, list[int]]] = {}
    if chunks_col is not None and docs_col is not None:
        manifest = {m.get("file_name"): m for m in docs_col.get(include=["metadatas"])["metadatas"] or []}
        got = chunks_col.get(include=["documents", "metadatas"])
        by_file: dict[str, list] = {}
        for text, meta in zip(got["documents"], got["metadatas"]):
            record = manifest.get(meta.get("file_name"))
            if record is None or record.get("sha256") != meta.get("doc_sha256"):
                continue  # not the document's current version
            labels = str(meta.get("page_labels") or "")
            by_file.setdefault(str(meta["file_name"]), []).append(SimpleNamespace(
                text=text or "", section=str(meta.get("section") or ""), page_start=int(meta.get("page_start", 0)),
                page_labels=labels.split("|") if labels else [], index=int(meta.get("chunk_index", 0))))
        workspace = getattr(settings, "workspace", None)
        quotes = Mapper(load_catalogue(Path(workspace) if workspace else None)).quoted
        for name, chunks in sorted(by_file.items()):
            index = read_index(sorted(chunks, key=lambda c: c.index), quotes, int(manifest[name].get("pages") or 0))
            if index:
                data[name] = index
    path = _path(settings, collection)
    if data:
        atomic_write_bytes(path, json.dumps(data, indent=1, sort_keys=True).encode())
    else:
        path.unlink(missing_ok=True)
    return data


def record(store, file_name: str, chunks: Sequence, quotes, pdf_pages: int = 0) -> dict[str, list[int]]:
    """Read the content index of one stored document and keep it beside the store (the ingest's hook in
    ingest/pipeline.store_document, `quotes` the frameworks mapper's); a document without one drops any
    it had."""
    index = read_index(chunks, quotes, pdf_pages)
    data = _load(store.settings, store.collection)
    if not index and file_name not in data:
        return index
    data.pop(file_name, None)
    if index:
        data[file_name] = index
        log.info("%s: its content index names pages for %d requirements", file_name, len(index))
    path = _path(store.settings, store.collection)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, json.dumps(data, indent=1, sort_keys=True).encode())
    return index


def drop_document(settings, collection: str, file_name: str | None = None) -> bool:
    """Remove what the store keeps of its reports' content indexes: one document's entry (`file_name`), or
    the company's whole file. True when something was removed (`autofill forget` calls this for its
    entry in store/derived.py)."""
    path = _path(settings, collection)
    if not path.is_file():
        return False
    if file_name is None:
        path.unlink(missing_ok=True)
        return True
    data = _load(settings, collection)
    if file_name not in data:
        return False
    data.pop(file_name)
    if not data:
        path.unlink(missing_ok=True)
    else:
        atomic_write_bytes(path, json.dumps(data, indent=1, sort_keys=True).encode())
    return True


def pointed_pages(settings, collection: str, requirement_ids: Iterable[str],
                  data: dict | None = None) -> list[tuple[str, int, str]]:
    """(file name, PDF page, requirement id) for every page the company's reports' indexes name for one
    of `requirement_ids`, in the order the ids come (`data`: the index already loaded, see `load`)."""
    data = _load(settings, collection) if data is None else data
    out: list[tuple[str, int, str]] = []
    seen: set[tuple[str, int]] = set()
    for rid in requirement_ids:
        for file_name, index in data.items():
            for p in index.get(rid, []):
                if (file_name, p) not in seen:
                    seen.add((file_name, p))
                    out.append((file_name, p, rid))
    return out
