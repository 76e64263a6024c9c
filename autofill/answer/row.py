"""Answering one question row: HyDE -> retrieval -> rerank -> chain-of-thought answer with an LLM,
or retrieval -> evidence-only draft without one. Kept apart from the run loop (pipeline.py) so the
per-row logic reads top to bottom in one place."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from autofill.answer.evidence_only import evidence_answer
from autofill.answer.generate import cite_figure_page, generate_answer
from autofill.search.centring import CentredSearch
from autofill.search.hyde import hypothetical_passage
from autofill.search.boilerplate_pages import with_boilerplate_last
from autofill.search.index_pages import with_index_pages
from autofill.search.multiquery import search_queries
from autofill.answer.pages import PageLocator
from autofill.answer.rerank import Call, PassageReranker, rerank
from autofill.search.retrieval import retrieve
from autofill.search.searches import Index
from autofill.search.second_stage import second_stage
from autofill.choices import RetrievalMode, SecondStageChoice
from autofill.errors import InputError
from autofill.plan import second_stage_of
from autofill.providers.base import ChatMessage, ChatModel, ChatResult, Embedder
from autofill.providers.cost import UsageMeter
from autofill.providers.retry import unread_replies
from autofill.records import Answer, Citation, QuestionRow, RowResult, StageUsage, outcome_of
from autofill.settings import Settings
from autofill.states import Outcome
from autofill.store.multilingual import crosses

NO_EVIDENCE = "No evidence retrieved"


class NoEvidence(Exception):
    """Retrieval returned no passage: nothing to answer from (the row fails and keeps what it held)."""


@dataclass
class RowContext:
    """Everything rows share during one run. `search_lock` serialises store and embedder access:
    they are local and fast, and neither Chroma's client nor a torch model is worth sharing across
    threads unguarded; the slow part, the LLM calls, runs concurrently."""

    settings: Settings
    company: str
    store: Any  # CompanyStore (duck-typed: query, bm25_search)
    embedder: Embedder
    chat: ChatModel | None
    reranker: PassageReranker  # the plan's reranker (answer/rerank.make_reranker)
    mode: RetrievalMode  # the plan's retrieval mode
    meter: UsageMeter
    search_lock: threading.Lock = field(default_factory=threading.Lock)
    # Finds the page of a quote or answer inside a passage spanning pages (None: first page).
    locator: PageLocator | None = None
    # Set when the run stops (Ctrl-C, broken template): rows in flight end before their next call.
    stop: threading.Event = field(default_factory=threading.Event)
    # The language of most of the store's pages (autofill/language.py): HyDE writes in it.
    report_language: str = ""
    # The plan's second stage (search/second_stage.py); None: the settings' (plan.second_stage_of).
    second_stage: SecondStageChoice | None = None
    # The store's multilingual index (store/multilingual.py) and the languages of its documents: a row in
    # a language the store's embedder does not read, or against such documents, is searched with it.
    multilingual: Any = None
    document_languages: tuple[str, ...] = ()
    # translation/translator.QueryTranslator: such a row is searched in the documents' words too.
    translator: Any = None
    # search/centring.Centre: the questionnaire's means its rows are centred on in the multilingual index.
    centre: Any = None

    def searched_with(self, row: QuestionRow) -> tuple[Any, Any]:
        """(store, query embedder) a row's dense search uses: the multilingual index's across languages."""
        if self.multilingual is not None and crosses(self.store.embedder_name,
                                                     (row.language, *self.document_languages)):
            if self.centre:
                return CentredSearch(self.multilingual, self.centre, self.settings.retrieval.rrf_k), \
                    self.multilingual.embedder
            return self.multilingual, self.multilingual.embedder
        return self.store, self.embedder

    def crosses(self, row: QuestionRow) -> bool:
        """Whether the row is searched with the multilingual index."""
        return self.searched_with(row)[0] is not self.store

    def translation(self, row: QuestionRow) -> str:
        """The row's text in its documents' words (translation/translator.py), searched beside it: for a row
        searched with the multilingual index only; "" for any other, or without a dictionary."""
        return self.translations([row])[0]

    def translations(self, rows: Sequence[QuestionRow]) -> list[str]:
        """`translation` of each row, those the translator serves translated together."""
        if self.translator is None:
            return ["" for _ in rows]
        crosses = [self.crosses(row) for row in rows]
        done = iter(self.translator.for_rows([row for row, c in zip(rows, crosses) if c]) if any(crosses) else [])
        return [next(done).strip() if c else "" for c in crosses]


class RunStopped(Exception):
    """The run is stopping; this row is abandoned unfinished (not checkpointed, not failed)."""


def _stage_call(ctx: RowContext, stage: str, usage: dict[str, StageUsage], replies: dict[str, Any]) -> Call:
    """A chat call that records its usage under `stage`, both for the row and for the run (replies the
    server sent that could not be read count as calls too: providers/retry.unread_replies), and keeps the
    stage's last reply in `replies` (RowResult.replies)."""
    assert ctx.chat is not None
    chat, llm = ctx.chat, ctx.settings.llm

    def call(messages: list[ChatMessage], json_mode: bool) -> ChatResult:
        if ctx.stop.is_set():
            raise RunStopped()
        with unread_replies() as unread:
            try:
                result = chat.complete(messages, temperature=llm.temperature, max_tokens=llm.max_tokens,
                                       json_mode=json_mode)
            finally:
                if unread[0]:
                    usage.setdefault(stage, StageUsage()).add(ctx.meter.unread(stage, unread[0]))
        usage.setdefault(stage, StageUsage()).add(ctx.meter.record(stage, result))
        replies[stage] = result
        return result

    return call


def answer_row(ctx: RowContext, row: QuestionRow) -> RowResult:
    """Answer one row; the result's outcome says how it ended (answered, drafted, unparsed, failed).
    A provider failure (after the provider's own retries) or any other error in this row makes a failed
    RowResult with the reason; a broken prompt template or an unusable endpoint (InputError, including
    EndpointError) or a KeyboardInterrupt stops the run instead, since every other row would hit it too."""
    started = time.monotonic()
    usage: dict[str, StageUsage] = {}
    replies: dict[str, Any] = {}
    try:
        answer, passages = _answer(ctx, row, usage, replies)
    except (InputError, RunStopped):
        raise
    except NoEvidence:
        return RowResult(question=row, answer=None, usage=usage, error=NO_EVIDENCE, outcome=Outcome.FAILED,
                         seconds=time.monotonic() - started)
    except Exception as exc:  # noqa: BLE001 - one row's failure must not end the run
        reason = str(exc).strip() or type(exc).__name__
        return RowResult(question=row, answer=None, usage=usage, error=f"{type(exc).__name__}: {reason}",
                         outcome=Outcome.FAILED, seconds=time.monotonic() - started)
    return RowResult(question=row, answer=answer, passages=passages, usage=usage, outcome=outcome_of(answer),
                     seconds=time.monotonic() - started, replies=replies)


def _answer(ctx: RowContext, row: QuestionRow, usage: dict[str, StageUsage], replies: dict[str, Any]):
    s = ctx.settings
    hyde_text = ""
    if ctx.chat is not None and ctx.mode.uses_hyde:
        hyde_text = hypothetical_passage(s, _stage_call(ctx, "hyde", usage, replies), ctx.company, row, ctx.report_language)
    queries: list[str] = []
    if ctx.chat is not None and s.retrieval.multi_query:
        queries = search_queries(s, _stage_call(ctx, "multiquery", usage, replies), ctx.company, row)
    with ctx.search_lock:
        store, embedder = ctx.searched_with(row)
        index = Index.STORE if store is ctx.store else Index.CENTRED if ctx.centre else Index.MULTILINGUAL
        candidates = retrieve(s, store, embedder, row, ctx.mode, hyde_passage=hyde_text, extra_queries=queries,
                              translation=ctx.translation(row), index=index)
        candidates = with_index_pages(s, ctx.store, row, candidates)
        candidates = with_boilerplate_last(s, ctx.store, row, candidates)
        candidates = second_stage(s, ctx.second_stage or second_stage_of(s), ctx.store, row, candidates,
                                  ctx.document_languages)
    if not candidates:
        raise NoEvidence()

    call = _stage_call(ctx, "rerank", usage, replies) if ctx.reranker.uses_chat and ctx.chat is not None else None
    top = rerank(s, ctx.reranker, row, candidates, call=call)
    if ctx.reranker.counts_calls:  # a rerank API: one billed call, no tokens
        usage.setdefault("rerank", StageUsage()).add(StageUsage(calls=1))
        ctx.meter.add("rerank", StageUsage(calls=1))

    locate = ctx.locator.page_of if ctx.locator is not None else None
    if ctx.chat is None:
        across = bool(row.language and ctx.report_language and row.language != ctx.report_language)
        return evidence_answer(row, top, locate, across_languages=across), top

    context = top  # in rank order, best first: the prompt's passage i is rank i
    answer = generate_answer(s, _stage_call(ctx, "answer", usage, replies), ctx.company, row, context, ctx.report_language)
    answer = cite_figure_page(answer, context, locate)  # the page stating the figure, not one naming the topic
    answer = replace(answer, citations=_relocated(answer, context, locate))
    return answer, top


def _relocated(answer: Answer, context: list, locate) -> list[Citation]:
    """A citation of a passage spanning pages says its first page; move it to the page that holds
    the answer's words (a figure from a table row printed after the page break)."""
    if locate is None:
        return answer.citations
    out: list[Citation] = []
    for c in answer.citations:
        spanning = next((p for p in context if p.file_name == c.file_name and p.page_start == c.page
                         and p.page_end > p.page_start), None)
        if spanning is not None:
            c = spanning.citation(locate(spanning, answer.answer))
        if c not in out:
            out.append(c)
    return out
