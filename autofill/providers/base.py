"""Small provider interfaces. Each SDK is imported by exactly one module (local.py: onnxruntime and
tokenizers, the default local embedder; local_torch.py: sentence-transformers, the optional torch
runtime; openai_provider.py: openai; cohere_provider.py: cohere), named by its row in the provider table
(autofill/choices.py PROVIDERS); everything else talks to these protocols, so tests inject scripted
fakes or point the real SDKs at loopback servers.

`Scorer` is every reranker's one scoring interface (as AnswerDotAI/rerankers' `rank()`): ColBERT
(providers/colbert.py), the cross-encoder (providers/cross_encoder.py), Cohere Rerank
(providers/cohere_provider.py) and the chat model's listwise ranking (answer/rerank.py `ListwiseScorer`)
each take a `RankQuery` and the passages and return `ScoredDocument`s, best first. answer/rerank.py turns
the plan's reranker into one and applies its ranking to the passages (`apply_ranking`), the one place that
reranks; the second stage (search/second_stage.py) reads ColBERT's and the cross-encoder's through it too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol, Sequence, runtime_checkable

from autofill.records import Passage


@dataclass
class ChatMessage:
    role: str  # "system", "user" or "assistant"
    content: str


@dataclass
class ChatResult:
    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False  # served from the on-disk response cache: no API call was made
    cache_entry: str = ""  # the response cache's file holding this reply (providers/cache.forget_reply)


@dataclass(frozen=True)
class ScoredDocument:
    """One document as a reranker scored it: `index`, its position in the documents passed in; `score`,
    higher is more relevant, None for a listwise ranking that orders without scoring (the passage then
    keeps the score it had)."""

    index: int
    score: float | None


RerankResult = ScoredDocument  # the name a provider's rerank() results had before the one interface


@dataclass(frozen=True)
class RankQuery:
    """What a reranker reads of a row: `text`, the query a scoring model reads (the whole row, its search
    words or its question, as the caller chooses); `question`, `form_of_answer` and `explanation` apart for a
    listwise prompt that shows them one by one."""

    text: str
    question: str = ""
    form_of_answer: str = ""
    explanation: str = ""


@runtime_checkable
class Scorer(Protocol):
    """Every reranker's one interface. `rank` returns the documents it ranked, best first, each once (ties
    in the order given); `top_n` > 0 asks for the best `top_n` only (a rerank API returns no more), 0 for
    all. A document left out is placed after the ranked ones, in its order, by the caller."""

    model: str

    def rank(self, query: RankQuery, documents: Sequence[Passage], top_n: int = 0) -> list[ScoredDocument]: ...


def ranked_by_score(scores: Sequence[float], top_n: int = 0) -> list[ScoredDocument]:
    """Scores (one per document) as ScoredDocuments, best first, ties in the documents' order. Pure."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    return [ScoredDocument(i, float(scores[i])) for i in (order[:top_n] if top_n > 0 else order)]


@dataclass
class EmbedUsage:
    tokens: int = 0
    calls: int = 0


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors. `name` identifies provider and model ("local:all-MiniLM-L6-v2");
    a store records it at creation and refuses any other embedder."""

    name: str

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


@runtime_checkable
class ChatModel(Protocol):
    model: str

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float = 0.0,
        max_tokens: int = 1200,
        json_mode: bool = False,
    ) -> ChatResult: ...


@runtime_checkable
class Reranker(Protocol):
    """A rerank API's own call over plain texts (Cohere Rerank, the cross-encoder); a run ranks through
    `Scorer.rank`, which both also offer."""

    model: str

    def rerank(self, query: str, documents: Sequence[str], top_n: int) -> list[RerankResult]: ...


@dataclass
class Providers:
    """The clients one run uses. `chat` is None when no LLM is configured (evidence-only mode)."""

    embedder: Embedder
    chat: ChatModel | None = None
    reranker: Reranker | None = None
    judge: ChatModel | None = None


# A chat call bound to one row's settings and usage counter: call(messages, json_mode) -> ChatResult.
Call = Callable[[list[ChatMessage], bool], ChatResult]
