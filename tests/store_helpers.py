"""Hand-built chunks and failure-injecting wrappers for store tests."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

from autofill.records import Chunk, DocumentRecord


def make_chunks(company: str, file_name: str, version: str, texts: list[str], pages_per_chunk: int = 1) -> list[Chunk]:
    """Chunks of one document version; the version string stands in for the file's content hash."""
    sha = hashlib.sha256(f"{file_name}:{version}".encode()).hexdigest()
    out = []
    for i, text in enumerate(texts):
        page = 1 + i * pages_per_chunk
        out.append(Chunk(
            id=f"{hashlib.sha256(company.encode()).hexdigest()[:8]}-{sha[:16]}-{i:05d}",
            company=company, file_name=file_name, doc_sha256=sha,
            page_start=page, page_end=page + pages_per_chunk - 1,
            section=f"Section {i // 2 + 1}", index=i, has_table=("|" in text),
            text=text, content_hash=hashlib.sha256(text.encode()).hexdigest(),
        ))
    return out


def record_for(chunks: list[Chunk], pages: int | None = None, source_path: str = "") -> DocumentRecord:
    first = chunks[0]
    return DocumentRecord(
        file_name=first.file_name, sha256=first.doc_sha256,
        pages=pages if pages is not None else max(c.page_end for c in chunks),
        chunks=len(chunks), empty_pages=0,
        ingested_at=datetime.now(timezone.utc).isoformat(), source_path=source_path,
    )


class Failing:
    """Wraps an object; the named method raises RuntimeError (a simulated crash), the rest pass through."""

    def __init__(self, inner, method: str):
        self._inner = inner
        self._method = method
        self.calls: list[tuple] = []

    def __getattr__(self, name):
        if name == self._method:
            def boom(*args, **kwargs):
                raise RuntimeError(f"simulated crash in {name}")
            return boom
        return getattr(self._inner, name)


class Recording:
    """Wraps an object and records the keyword arguments of calls to one method."""

    def __init__(self, inner, method: str, max_batch: int | None = None):
        self._inner = inner
        self._method = method
        self._max_batch = max_batch
        self.calls: list[dict] = []

    def get_max_batch_size(self):
        return self._max_batch if self._max_batch is not None else self._inner.get_max_batch_size()

    def __getattr__(self, name):
        attr = getattr(self._inner, name)
        if name != self._method:
            return attr

        def wrapper(*args, **kwargs):
            self.calls.append(kwargs)
            return attr(*args, **kwargs)
        return wrapper
