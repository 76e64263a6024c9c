"""Build provider clients from settings. Provider modules are imported lazily: each pulls in its SDK."""

from __future__ import annotations

from autofill.errors import InputError
from autofill.providers.base import ChatModel, Embedder, Providers, Reranker
from autofill.settings import Settings

DEFAULT_EMBED_MODELS = {
    "local": "all-MiniLM-L6-v2",
    "openai": "text-embedding-3-small",
    "cohere": "embed-english-v3.0",
}
DEFAULT_CHAT_MODELS = {"openai": "gpt-4o-mini", "cohere": "command-r-plus"}


def embedder_name(settings: Settings) -> str:
    """The name a new store records, "provider:model" (no provider set: local)."""
    provider = settings.embedding.provider or "local"
    return f"{provider}:{settings.embedding.model or DEFAULT_EMBED_MODELS[provider]}"


def make_embedder(settings: Settings, name: str | None = None) -> Embedder:
    """An embedder for `name` ("local:all-MiniLM-L6-v2", as recorded in a store) or for the settings."""
    provider, _, model = (name or embedder_name(settings)).partition(":")
    if provider == "local":
        if settings.embedding.runtime == "torch":
            from autofill.providers.local_torch import LocalEmbedder as TorchEmbedder

            return TorchEmbedder(model=model, **_batch(settings),
                                 device=settings.embedding.device)
        from autofill.providers.local import LocalEmbedder

        return LocalEmbedder(model=model, **_batch(settings))
    if provider == "openai":
        from autofill.providers.openai_provider import OpenAIEmbedder

        return OpenAIEmbedder(settings.llm, model=model, **_batch(settings))
    if provider == "cohere":
        from autofill.providers.cohere_provider import CohereEmbedder

        return CohereEmbedder(settings.llm, model=model, **_batch(settings))
    raise InputError(f"unknown embedder {name!r}")


def chat_model_name(settings: Settings) -> str:
    provider = settings.llm_provider
    return settings.llm.model or DEFAULT_CHAT_MODELS.get(provider, "")


def _batch(settings: Settings) -> dict:
    """The batch size asked for, or nothing: each embedder's own default (embedding.batch_size = 0)."""
    size = settings.embedding.batch_size
    return {"batch_size": size} if size and size > 0 else {}


def make_chat(settings: Settings, model: str | None = None) -> ChatModel | None:
    """The chat model, wrapped in the response cache when enabled; None when no LLM is configured."""
    provider = settings.llm_provider
    if provider == "none":
        return None
    model = model or chat_model_name(settings)
    if provider == "openai":
        from autofill.providers.openai_provider import OpenAIChat

        chat: ChatModel = OpenAIChat(settings.llm, model=model)
    elif provider == "cohere":
        from autofill.providers.cohere_provider import CohereChat

        chat = CohereChat(settings.llm, model=model)
    else:
        raise InputError(f"unknown LLM provider {provider!r}")
    if settings.llm.cache:
        from autofill.providers.cache import CachedChat

        chat = CachedChat(chat, settings.cache_dir, provider=provider)
    return chat


def make_reranker(settings: Settings) -> Reranker | None:
    """A dedicated reranking model (Cohere Rerank) when settings ask for one; the LLM listwise
    reranker is not a provider but a pipeline stage using the chat model."""
    if settings.reranker == "cross-encoder":
        from autofill.providers.cross_encoder import CrossEncoderReranker

        return CrossEncoderReranker()
    if settings.reranker != "cohere":
        return None
    from autofill.providers.cohere_provider import CohereReranker

    return CohereReranker(settings.llm, model=settings.retrieval.cohere_rerank_model)


def make_providers(settings: Settings, embedder_name_in_store: str | None = None) -> Providers:
    judge_model = settings.eval.judge_model or None
    chat = make_chat(settings)
    return Providers(
        embedder=make_embedder(settings, embedder_name_in_store),
        chat=chat,
        reranker=make_reranker(settings),
        judge=make_chat(settings, judge_model) if judge_model and chat is not None else chat,
    )
