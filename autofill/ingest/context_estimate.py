"""The price of `ingest --contextualize` before any call (ingest/contextualize.py): one call per chunk of
the files the ingest would (re)ingest, decided exactly as the ingest decides (ingest/pipeline.py
`files_to_parse`). Apart from contextualize.py because it needs the ingest's plan, and the ingest needs
the contextualizer."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from autofill.errors import InputError
from autofill.ingest.contextualize import (
    CHUNK_FILL,
    DEFAULT_COMPLETION,
    MAX_TOKENS,
    OPENING_CHARS,
    STAGE,
    context_messages,
)
from autofill.ingest.planning import files_to_parse
from autofill.usage_estimate import CompanyEstimate, StageEstimate, calibrate, stage_figures
from autofill.providers.cost import cost_usd, price_for, pricing_for
from autofill.providers.factory import chat_model_name
from autofill.records import StageUsage
from autofill.settings import Settings
from autofill.store.chroma_store import find_store


@dataclass
class ContextEstimate:
    """What contextualising an ingest would cost, before any call: one call per chunk of the files that
    will be (re)ingested. Chunks are estimated from the text layer; cached replies cost nothing, so a
    re-ingest of chunks seen before costs less than this."""

    model: str
    documents: int = 0
    chunks: int = 0
    prompt_chars: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    priced: bool = True
    unpriced_reason: str = ""  # why there is no price (providers/cost.Pricing.unknown_reason)

    def describe(self) -> str:
        if not self.documents:
            return f"Contextualize with {self.model}: nothing to ingest, no calls."
        price = f"${self.cost_usd:.4f} estimated" if self.priced else f"cost unknown ({self.unpriced_reason})"
        return (f"Contextualize with {self.model}: about {self.chunks:,} chunks in {self.documents} "
                f"document{'s' if self.documents != 1 else ''}, one call each, about {self.prompt_tokens:,} "
                f"prompt + {self.completion_tokens:,} completion tokens, {price} (cached replies are free)")

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "documents": self.documents, "chunks": self.chunks, "calls": self.chunks,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost_usd": round(self.cost_usd, 6) if self.priced else None, "priced": self.priced,
                "cost_unknown_reason": self.unpriced_reason or None}

    def consent_reason(self, settings: Settings) -> str:
        """Why this needs the user's go-ahead (above run.confirm_above_usd); "" when it does not."""
        limit = settings.run.confirm_above_usd
        if self.cost_usd > limit:
            return (f"contextualizing about {self.chunks:,} chunks with {self.model} costs an estimated "
                    f"${self.cost_usd:.2f} (over ${limit:.2f})")
        return ""

    def calibrate(self, settings: Settings, usage: dict[str, StageUsage]) -> None:
        """Refine the characters-per-token and completion figures from what the API billed."""
        stage = StageEstimate(calls=self.chunks, prompt_chars=self.prompt_chars, prompt_tokens=self.prompt_tokens,
                              completion_tokens=self.completion_tokens)
        calibrate(settings, CompanyEstimate(company="", model=self.model, stages={STAGE: stage}), usage)


def _text_pages(path: Path) -> list[str]:
    import pymupdf  # the text layer only (no tables, no OCR): fast, enough for an estimate

    try:
        with pymupdf.open(path) as pdf:
            return [page.get_text() for page in pdf]
    except Exception:  # noqa: BLE001 - a file that cannot be read fails at ingest, with its reason
        return []


def estimate_contextualize(settings: Settings, company: str, paths: Sequence[Path | str], force: bool = False,
                           recursive: bool = True, model: str | None = None) -> ContextEstimate:
    """Price contextualising the files this ingest would (re)ingest, before any call: per page, chunks
    from the characters of its text layer (a page without one counts a chunk when OCR is on), and the
    prompt rendered from the real template with the file's opening and a chunk of typical length.
    On generated reports (tests/pdf_factory.py): 6 chunks estimated for 8 stored (5 short pages whose
    headings start chunks), 68 for 58 (34 pages of prose), 3 for 3 (3 pages with a table); the summary
    after the ingest reports the calls actually made."""
    model = model or chat_model_name(settings)
    est = ContextEstimate(model=model)
    ing = settings.ingest
    per_chunk = max(1.0, ing.chunk_chars * CHUNK_FILL - ing.chunk_overlap / 2)
    try:
        store = find_store(settings, company)
    except InputError:
        store = None
    documents = store.documents() if store is not None else {}
    for path in files_to_parse(settings, documents, paths, force, recursive):
        pages = _text_pages(path)
        if not pages:
            continue
        n = 0
        for text in pages:  # chunks rarely run across a page break, so each page counts whole chunks
            chars = len(text.strip())
            if chars >= ing.min_page_chars:
                n += math.ceil(chars / per_chunk)
            elif ing.ocr:
                n += 1
        n = max(1, n)
        opening = "\n".join(t.strip() for t in pages if t.strip())[:OPENING_CHARS]
        messages = context_messages(settings, company, path.name, "", opening,
                                    chunk_text="x" * int(ing.chunk_chars * CHUNK_FILL))
        est.documents += 1
        est.chunks += n
        est.prompt_chars += n * sum(len(m.content) for m in messages)
    ratio, completion = stage_figures(settings, model, STAGE)
    completion = completion if completion is not None else DEFAULT_COMPLETION
    est.prompt_tokens = int(round(est.prompt_chars / ratio))
    est.completion_tokens = int(round(min(completion, MAX_TOKENS) * est.chunks))
    pricing = pricing_for(settings)  # a model or endpoint with no price: cost unknown, never $0
    est.priced = price_for(pricing, model) is not None
    est.unpriced_reason = pricing.unknown_reason([model])
    est.cost_usd = cost_usd(pricing, model, est.prompt_tokens, est.completion_tokens)
    return est
