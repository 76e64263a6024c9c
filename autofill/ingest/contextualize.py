"""Contextual chunk descriptions at ingest (`autofill ingest --contextualize`, `ingest.contextualize`).

A chunk cut from a 10-K often does not say whose filing it is, which year, or which statement it belongs
to: "Purchases of property, plant and equipment (1,577) (1,373)" carries none of "3M", "2018", "cash
flows" or "capital expenditure". As in Anthropic's contextual retrieval, the chat model writes one short
line per chunk situating it in its document ("From 3M's 2018 Form 10-K, consolidated statement of cash
flows: capital expenditures by year"); the line is embedded and BM25-indexed with the chunk
(`Chunk.context`, in `Chunk.embed_text` and the store's keyword text) while reviewers and the answering
model still see only the chunk text.

Render `contextualize.j2` (the document's opening, then the chunk), call, parse (`parse_context`, pure).
Replies go through the response cache (providers/cache.py), so re-ingesting the same chunks with the same
model and template costs nothing. The model and the template are part of the chunking fingerprint
(`context_fingerprint`), so turning it on or off, or changing model, re-ingests. `estimate_contextualize`
(ingest/context_estimate.py) prices an ingest before any call (characters of the PDFs' text layers over characters per token, as
portfolio/estimate.py does); the CLI shows it, asks above `run.confirm_above_usd` (or takes `--yes`), and
reports the usage actually billed after. An endpoint that cannot be used at all raises EndpointError on
its first call, before the document is stored.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import logging
from dataclasses import replace
from typing import Sequence

from autofill.delimit import untrusted
from autofill.errors import InputError
from autofill.providers.base import ChatMessage, ChatModel
from autofill.providers.cost import UsageMeter, pricing_for
from autofill.providers.factory import chat_model_name, make_chat
from autofill.records import Chunk, ParsedDocument
from autofill.replies import CONTEXT_PREAMBLE, drop_preamble, unfence
from autofill.reporting import Reporter, as_reporter
from autofill.settings import Settings
from autofill.templating import render, template_source

log = logging.getLogger(__name__)

STAGE = "contextualize"
TEMPLATE = "contextualize"
OPENING_CHARS = 3000  # the document's first characters shown with every chunk (title page, contents, intro)
MAX_TOKENS = 120  # a sentence of at most 35 words; room for a model that runs on
MAX_CONTEXT_CHARS = 400  # a longer reply is cut at a word boundary
DEFAULT_COMPLETION = 45.0  # completion tokens per call before the API reported any
# Chunk text per chunk for the estimate, as a share of ingest.chunk_chars: chunks are cut at paragraph,
# page and heading boundaries, so they run short of the target size.
CHUNK_FILL = 0.75



# --------------------------------------------------------------------------- prompt and reply


def parse_context(text: str) -> str:
    """The context line from a reply: code fences, a "Here is the context:" preamble, surrounding quotes
    and line breaks dropped, at most MAX_CONTEXT_CHARS (cut at a word). "" for an empty reply."""
    text = drop_preamble(unfence(text), CONTEXT_PREAMBLE)
    text = " ".join(text.replace("**", "").split())
    for left, right in (('"', '"'), ("'", "'"), ("“", "”"), ("<context>", "</context>")):
        if len(text) > len(left) + len(right) and text.startswith(left) and text.endswith(right):
            text = text[len(left):-len(right)].strip()
    if len(text) > MAX_CONTEXT_CHARS:
        text = text[:MAX_CONTEXT_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "..."
    return text


def document_opening(doc: ParsedDocument, chars: int = OPENING_CHARS) -> str:
    """The document's first `chars` characters of text (title page, contents, introduction), in reading
    order: what the model is told about the whole document."""
    parts: list[str] = []
    total = 0
    for page in doc.pages:
        for block in page.blocks:
            text = block.text.strip()
            if not text:
                continue
            parts.append(text)
            total += len(text) + 1
            if total >= chars:
                return "\n".join(parts)[:chars]
    return "\n".join(parts)


def _pages(start: int, end: int) -> str:
    return f"p. {start}" if start == end else f"pp. {start}-{end}"


def context_messages(settings: Settings, company: str, file_name: str, title: str, opening: str,
                     chunk: Chunk | None = None, *, chunk_text: str | None = None) -> list[ChatMessage]:
    """The prompt for one chunk (or, for the estimate, a stand-in `chunk_text`)."""
    text = chunk.text if chunk is not None else (chunk_text or "")
    prompt = render(settings.templates_dir, TEMPLATE, company=untrusted(company), file_name=untrusted(file_name),
                    title=untrusted(title), opening=untrusted(opening),
                    pages=_pages(chunk.page_start, chunk.page_end) if chunk is not None else "p. 1",
                    section=untrusted(chunk.section) if chunk is not None else "", chunk=untrusted(text))
    return [ChatMessage("user", prompt)]


def context_fingerprint(settings: Settings, model: str | None = None) -> str:
    """What contextualisation adds to a document's chunking fingerprint: "" when it is off (fingerprints
    of stores built without it stay as they were), else the provider, model and template, so changing
    any of them re-ingests."""
    if not settings.ingest.contextualize:
        return ""

    template = hashlib.sha256(template_source(settings.templates_dir, TEMPLATE).encode()).hexdigest()[:12]
    return f"{settings.llm_provider}:{model or chat_model_name(settings)}:{template}"


# --------------------------------------------------------------------------- the ingest hook


class Contextualizer:
    """Adds context lines to a document's chunks: `chunks = contextualizer(doc, chunks)`. Calls run
    `llm.concurrency` at a time; usage accumulates in `meter` (stage "contextualize") across documents.
    A chunk whose call fails after the provider's retries keeps an empty context (one warning per
    document); an unusable endpoint (EndpointError) or a broken template (InputError) stops the ingest."""

    def __init__(self, settings: Settings, chat: ChatModel, reporter: Reporter | None = None) -> None:
        self.settings = settings
        self.chat = chat
        self.reporter = as_reporter(reporter)
        self.meter = UsageMeter(pricing_for(settings))
        self.fingerprint = context_fingerprint(settings, getattr(chat, "model", None))

    def _one(self, messages: list[ChatMessage]) -> str:
        llm = self.settings.llm
        result = self.chat.complete(messages, temperature=llm.temperature, max_tokens=MAX_TOKENS)
        self.meter.record(STAGE, result)
        return parse_context(result.text)

    def __call__(self, doc: ParsedDocument, chunks: Sequence[Chunk]) -> list[Chunk]:
        if not chunks:
            return list(chunks)
        company = chunks[0].company
        opening = document_opening(doc)
        prompts = [context_messages(self.settings, company, doc.file_name, doc.title, opening, c) for c in chunks]
        contexts: list[str] = [""] * len(chunks)
        failures: list[str] = []
        bar = self.reporter.bar(f"{doc.file_name} (context)", total=len(chunks), unit="chunks")
        pool = cf.ThreadPoolExecutor(max_workers=max(1, self.settings.llm.concurrency),
                                     thread_name_prefix="autofill-context")
        try:
            futures = {pool.submit(self._one, p): i for i, p in enumerate(prompts)}
            for future in cf.as_completed(futures):
                i = futures[future]
                try:
                    contexts[i] = future.result()
                except InputError:  # EndpointError included: every other call would fail the same way
                    raise
                except Exception as exc:  # noqa: BLE001 - one chunk's failure leaves it without context
                    failures.append(f"{type(exc).__name__}: {str(exc).strip()[:200]}")
                bar.advance()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            bar.close()
        pool.shutdown(wait=True)
        if failures:
            log.warning("%s: %d of %d chunks got no context line (%s); `autofill ingest --force` asks again "
                        "(the lines already written come from the cache)", doc.file_name, len(failures),
                        len(chunks), failures[0])
        return [replace(c, context=ctx) for c, ctx in zip(chunks, contexts)]


def make_contextualizer(settings: Settings, chat: ChatModel | None = None,
                        reporter: Reporter | None = None) -> Contextualizer | None:
    """The ingest hook, or None when `ingest.contextualize` is off. On without a chat model: InputError."""
    if not settings.ingest.contextualize:
        return None
    if chat is None:
        chat = make_chat(settings) if settings.llm_configured else None
    if chat is None:
        raise InputError("ingest --contextualize needs a chat model: set OPENAI_API_KEY / OPENAI_BASE_URL or "
                         "COHERE_API_KEY (or turn ingest.contextualize off)")
    return Contextualizer(settings, chat, reporter)
