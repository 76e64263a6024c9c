"""Small provider interfaces. Each SDK is imported by exactly one module (local.py: onnxruntime and
tokenizers, the default local embedder; local_torch.py: sentence-transformers, the optional torch
runtime; openai_provider.py: openai; cohere_provider.py: cohere), named by its row in the provider table
(autofill/choices.py PROVIDERS); everything else talks to these protocols, so tests inject scripted
fakes or point the real SDKs at loopback servers. `Reranker` here is a provider's reranking client
(Cohere Rerank); the rerankers a run chooses from are answer/rerank.py's, behind `rank()`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable


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


@dataclass
class RerankResult:
    index: int  # position in the documents passed in
    score: float


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
    model: str

    def rerank(self, query: str, documents: Sequence[str], top_n: int) -> list[RerankResult]: ...


@dataclass
class Providers:
    """The clients one run uses. `chat` is None when no LLM is configured (evidence-only mode)."""

    embedder: Embedder
    chat: ChatModel | None = None
    reranker: Reranker | None = None
    judge: ChatModel | None = None
