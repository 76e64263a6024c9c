"""Reranking of the retrieved candidates down to the `final_k` passages the answer step sees.

Every reranker is an object behind one interface (as AnswerDotAI/rerankers' `rank()`), chosen from the
table `autofill/choices.py` RERANKERS, whose row names the function here (or in a new module) that builds
it, imported only when the reranker is used:

    reranker.rank(row, passages, k, call) -> the passages reordered, best first (all of them)

`call` is the row's chat call (usage recorded under stage "rerank"), given to rerankers with
`uses_chat`. `rerank()` then cuts to `final_k` with the per-page cap.

Underneath, every model that ranks is a `providers.base.Scorer`: `rank(RankQuery, passages, top_n) ->
[ScoredDocument]` (the chat model's `ListwiseScorer` here; ColBERT, the cross-encoder and Cohere Rerank in
their provider modules), and `apply_ranking` is the one place a ranking is applied to the passages.

`llm` (LLMReranker): listwise, RankGPT style. The model sees numbered passages and returns a ranking
`[4] > [2] > ...`. When the candidates do not fit one window, a window slides from the bottom of
the list to the top (window `rerank_window`, moved by half a window), so strong passages found low in
the retrieval order bubble up into the top window that is ranked last.
`cohere`, `cross-encoder` (ProviderReranker): a dedicated reranking model behind a `Scorer` client.
`none` (NoReranker): retrieval order."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Protocol, Sequence

from autofill.search.retrieval import build_query
from autofill.choices import PROVIDERS, RerankerChoice, load
from autofill.delimit import untrusted
from autofill.errors import InputError
from autofill.providers.base import Call, ChatMessage, RankQuery, Reranker, ScoredDocument, Scorer
from autofill.records import Passage, QuestionRow
from autofill.replies import drop_fence_marks
from autofill.settings import Settings
from autofill.templating import render

# Characters of each passage shown to the ranking model: enough to judge relevance, and 20 of them
# keep the prompt well inside small context windows.
RERANK_PASSAGE_CHARS = 1200

_BRACKETED = re.compile(r"\[\s*(\d+)\s*\]")
_CHAIN = re.compile(r"\d+(?:\s*(?:>|,|>>|→|->)\s*\d+)+")
_PASSAGE_WORD = re.compile(r"(?:passage|doc(?:ument)?|id)\s*#?\s*(\d+)", re.IGNORECASE)
_INT = re.compile(r"\d+")


def parse_ranking(text: str, n: int) -> list[int]:
    """A full ranking of passage numbers 1..n from a model's reply, most relevant first.

    Accepts `[4] > [2] > [1]`, `4 > 2 > 1`, `4, 2, 1`, "Passage 4 ...", code fences and text around
    the ranking. Duplicates keep their first position, numbers outside 1..n are dropped, and numbers
    the model left out are appended in retrieval order, so the result is always a permutation."""
    text = drop_fence_marks(text or "")
    found: list[str] = _BRACKETED.findall(text)
    if not found:
        chain = _CHAIN.search(text)
        if chain:
            found = _INT.findall(chain.group(0))
    if not found:
        found = _PASSAGE_WORD.findall(text)
    if not found:
        found = _INT.findall(text)
    order: list[int] = []
    seen: set[int] = set()
    for token in found:
        number = int(token)
        if 1 <= number <= n and number not in seen:
            seen.add(number)
            order.append(number)
    order.extend(i for i in range(1, n + 1) if i not in seen)
    return order


def window_step(window: int) -> int:
    """How far the sliding windows move: half a window (15 for the default window of 30; no other step
    was ever measured, and the setting that chose one was retired in issue 44)."""
    return max(1, window // 2)


def window_starts(count: int, window: int, step: int) -> list[int]:
    """Start offsets of the sliding windows, bottom window first (RankGPT): for 30 candidates,
    window 20, step 10 -> [10, 0]. One window [0] when everything fits."""
    if count <= window:
        return [0]
    starts = []
    start = count - window
    while start > 0:
        starts.append(start)
        start -= step
    starts.append(0)
    return starts


def passage_views(passages: list[Passage], max_chars: int | None = None) -> list[dict]:
    """What a prompt shows for each passage: its number, its `FILE p. N` label and its text. Label and
    text are document-controlled, so both pass through `delimit.untrusted`: nothing in a PDF can close
    the `<passages>` block or forge a `<passage>` of its own (see the rerank and answer templates)."""
    views = []
    for i, p in enumerate(passages, start=1):
        text = p.text if max_chars is None or len(p.text) <= max_chars else p.text[:max_chars].rstrip() + " ..."
        pages = f"p. {p.page_start}" if p.page_end <= p.page_start else f"pp. {p.page_start}-{p.page_end}"
        views.append({"number": i, "label": untrusted(f"{p.file_name} {pages}"), "text": untrusted(text)})
    return views




def rank_window(settings: Settings, call: Call, row: QuestionRow, passages: list[Passage]) -> list[Passage]:
    """One listwise ranking call over `passages`; returns them reordered."""
    return [passages[i] for i in window_order(settings, call, query_of(row, ""), passages)]


def window_order(settings: Settings, call: Call, query: RankQuery, passages: Sequence[Passage]) -> list[int]:
    """One listwise ranking call over `passages`; their indexes, best first (a permutation)."""
    views = passage_views(list(passages), RERANK_PASSAGE_CHARS)
    prompt = render(settings.templates_dir, "rerank", question=query.question, form_of_answer=query.form_of_answer,
                    explanation=query.explanation, passages=views, count=len(views))
    system = render(settings.templates_dir, "rerank_system")
    result = call([ChatMessage("system", system), ChatMessage("user", prompt)], False)
    return [i - 1 for i in parse_ranking(result.text, len(passages))]


class ListwiseScorer:
    """The chat model's listwise ranking behind the one scoring interface (providers/base.Scorer): sliding
    windows of `rerank_window` passages moved by half a window (`window_step`), bottom window first
    (RankGPT). It orders without scoring: its ScoredDocuments have no score. `call` is the row's chat call."""

    def __init__(self, settings: Settings, call: Call, model: str = ""):
        self.settings, self.call, self.model = settings, call, model

    def rank(self, query: RankQuery, documents: Sequence[Passage], top_n: int = 0) -> list[ScoredDocument]:
        order = list(range(len(documents)))
        r = self.settings.retrieval
        window = max(2, r.rerank_window)
        step = window_step(window)
        if len(order) > 1:
            for start in window_starts(len(order), window, step):
                part = order[start:start + window]
                ranked = window_order(self.settings, self.call, query, [documents[i] for i in part])
                order[start:start + window] = [part[i] for i in ranked]
        return [ScoredDocument(i, None) for i in (order[:top_n] if top_n > 0 else order)]


def query_of(row: QuestionRow, text: str | None = None) -> RankQuery:
    """What a reranker reads of `row`: `text` for a scoring model (the whole row, `build_query`, unless
    given) and the row's parts for a listwise prompt."""
    return RankQuery(text=build_query(row) if text is None else text, question=row.question,
                     form_of_answer=row.form_of_answer, explanation=row.explanation)


def apply_ranking(passages: Sequence[Passage], ranking: Sequence[ScoredDocument]) -> list[Passage]:
    """The passages in `ranking`'s order (a scored one takes its score; an index out of range or seen
    before is ignored), then those it left out, in their order: a reranker that returns fewer than asked
    still leaves a full context. The one place a reranker's ranking is applied."""
    out, seen = [], set()
    for item in ranking:
        if 0 <= item.index < len(passages) and item.index not in seen:
            seen.add(item.index)
            p = passages[item.index]
            out.append(p if item.score is None else replace(p, score=float(item.score)))
    out.extend(p for i, p in enumerate(passages) if i not in seen)
    return out


def ranked(scorer: Scorer, row: QuestionRow, passages: list[Passage], top_n: int = 0) -> list[Passage]:
    """`passages` reordered by `scorer` for `row` (all of them; `top_n` asks the scorer for its best only)."""
    return apply_ranking(passages, scorer.rank(query_of(row), passages, top_n)) if passages else []


def llm_rerank(settings: Settings, call: Call, row: QuestionRow, passages: list[Passage]) -> list[Passage]:
    """Sliding-window listwise rerank of all candidates; returns the whole list reordered."""
    return ranked(ListwiseScorer(settings, call), row, passages)


class PassageReranker(Protocol):
    """What every reranker of the table is. `uses_chat`: pass the row's chat call; `counts_calls`: one
    billed call per row that is not a chat call (a rerank API); `reorders`: False for retrieval order."""

    name: str
    model: str
    uses_chat: bool
    counts_calls: bool
    reorders: bool

    def rank(self, row: QuestionRow, passages: list[Passage], k: int, call: Call | None = None) -> list[Passage]: ...


class LLMReranker:
    """Listwise rerank by the chat model, sliding windows (`llm_rerank`)."""

    name, uses_chat, counts_calls, reorders = "llm", True, False, True

    def __init__(self, settings: Settings, model: str = ""):
        self.settings, self.model = settings, model

    def rank(self, row: QuestionRow, passages: list[Passage], k: int, call: Call | None = None) -> list[Passage]:
        if call is None or len(passages) <= 1:
            return list(passages)
        return ranked(ListwiseScorer(self.settings, call, self.model), row, passages)


class ProviderReranker:
    """A reranking model behind a `Scorer` client: a rerank API (Cohere Rerank: one billed call a row,
    `counts_calls`) or a model that runs here (the offline cross-encoder: no call to count). It asks for
    the best `k`; the rest follow in retrieval order."""

    uses_chat, reorders = False, True

    def __init__(self, name: str, client: Scorer, counts_calls: bool = True):
        self.name, self.client, self.model = name, client, getattr(client, "model", "")
        self.counts_calls = counts_calls

    def rank(self, row: QuestionRow, passages: list[Passage], k: int, call: Call | None = None) -> list[Passage]:
        return ranked(self.client, row, passages, k)


class NoReranker:
    """Retrieval order."""

    name, model, uses_chat, counts_calls, reorders = "none", "", False, False, False

    def rank(self, row: QuestionRow, passages: list[Passage], k: int, call: Call | None = None) -> list[Passage]:
        return list(passages)


def build_llm(settings: Settings, choice: RerankerChoice, chat: Any, client: Reranker | None) -> LLMReranker:
    return LLMReranker(settings, getattr(chat, "model", "") if chat is not None else "")


def build_provider(settings: Settings, choice: RerankerChoice, chat: Any, client: Scorer | None) -> ProviderReranker:
    """A scoring client behind ProviderReranker: the run's (a rerank API's), else the row's local one."""
    if client is None and choice.client:
        client = load(choice.client)()
    if client is None:
        entry = PROVIDERS[choice.provider]
        raise InputError(f"reranker {choice.name!r} needs a {entry.name.capitalize()} API key ({entry.key_env})")
    return ProviderReranker(choice.name, client, counts_calls=choice.counts_calls)


def build_none(settings: Settings, choice: RerankerChoice, chat: Any, client: Reranker | None) -> NoReranker:
    return NoReranker()


def make_reranker(settings: Settings, choice: RerankerChoice, chat: Any = None,
                  client: Reranker | None = None) -> PassageReranker:
    """The reranker `choice` (a row of choices.RERANKERS, as resolved by the plan), built by the function
    its row names: `chat` is the run's chat model, `client` a provider's reranking client."""
    return load(choice.build)(settings, choice, chat, client)


def rerank(settings: Settings, reranker: PassageReranker, row: QuestionRow, passages: list[Passage],
           call: Call | None = None) -> list[Passage]:
    """The best `final_k` passages, best first, `rank` renumbered 1..final_k."""
    k = settings.retrieval.final_k
    ranked = reranker.rank(row, passages, k, call if reranker.uses_chat else None)
    # Without a reranker at most one passage per page (BHP page recall@6 0.60 -> 0.74 at equal MRR); with
    # one its judgement stands.
    cap = 0 if reranker.reorders else 1
    return [replace(p, rank=i) for i, p in enumerate(diverse(ranked, k, cap), start=1)]


def diverse(ranked: list[Passage], k: int, per_page: int) -> list[Passage]:
    """The first k passages in order, at most `per_page` from any one page (0: no limit). When the
    cap leaves fewer than k, the skipped passages fill up after them, in their order."""
    if per_page <= 0:
        return ranked[:k]
    count: dict[tuple[str, int], int] = {}
    kept, skipped = [], []
    for p in ranked:
        key = (p.file_name, p.page_start)
        if count.get(key, 0) < per_page:
            count[key] = count.get(key, 0) + 1
            kept.append(p)
        else:
            skipped.append(p)
        if len(kept) == k:
            return kept
    return kept + skipped[:k - len(kept)]

