"""How the store keeps autofill's records in Chroma's metadata (store/chroma_store.py): a document's
manifest record (its warnings as a JSON string), a chunk's metadata (page labels "|"-joined, OCR and table
flags), and a passage made back from what a query returns. Pure."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timezone
from typing import Any

from autofill.records import Chunk, DocumentRecord, Passage

_DOC_FIELDS = [f.name for f in dataclasses.fields(DocumentRecord)]


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def record_from_meta(meta: dict[str, Any]) -> DocumentRecord:
    values = {k: meta[k] for k in _DOC_FIELDS if k in meta}
    if "warnings" in values:  # a JSON list in a string; records from before it have none
        try:
            found = json.loads(values["warnings"] or "[]")
        except (TypeError, ValueError):
            found = [str(values["warnings"])]
        values["warnings"] = [str(w) for w in found] if isinstance(found, list) else [str(found)]
    return DocumentRecord(**values)


def record_meta(record: DocumentRecord) -> dict[str, Any]:
    """The manifest metadata of a record: scalars only, as Chroma requires (warnings as a JSON list)."""
    meta = dataclasses.asdict(record)
    meta["warnings"] = json.dumps(list(record.warnings), ensure_ascii=False)
    return meta


def chunk_meta(chunk: Chunk) -> dict[str, Any]:
    return {
        "company": chunk.company,
        "file_name": chunk.file_name,
        "doc_sha256": chunk.doc_sha256,
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "section": chunk.section,
        "chunk_index": chunk.index,
        "has_table": chunk.has_table,
        "content_hash": chunk.content_hash,
        "ocr": chunk.ocr,
        "page_label": chunk.page_label,
        "page_labels": "|".join(chunk.page_labels),
        # Model-written context line (ingest --contextualize); always written, "" without, because an upsert
        # of the same chunk id merges metadata and must not keep the line of an earlier ingest.
        "context": chunk.context,
    }


def passage_from(chunk_id: str, text: str | None, meta: dict[str, Any], score: float = 0.0, rank: int = 0) -> Passage:
    return Passage(
        chunk_id=chunk_id,
        file_name=str(meta.get("file_name", "")),
        page_start=int(meta.get("page_start", 0)),
        page_end=int(meta.get("page_end", 0)),
        section=str(meta.get("section", "")),
        text=text or "",
        score=score,
        rank=rank,
        ocr=bool(meta.get("ocr", False)),
        page_labels=str(meta.get("page_labels", "")).split("|") if meta.get("page_labels") else [],
        context=str(meta.get("context", "") or ""),
        has_table=bool(meta.get("has_table", False)),
    )
