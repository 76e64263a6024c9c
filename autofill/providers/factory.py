"""Build provider clients from settings and the provider table (autofill/choices.py PROVIDERS). Provider
modules are imported lazily: each pulls in its SDK."""

from __future__ import annotations

from autofill.choices import NONE, PROVIDERS, RERANKERS, chat_model_name, embedder_name, load  # noqa: F401 - re-exported
from autofill.errors import InputError
from autofill.providers.base import ChatModel, Embedder, Providers, Reranker
from autofill.providers.cache import CachedChat
from autofill.settings import Settings

DEFAULT_EMBED_MODELS = {name: p.default_embed_model for name, p in PROVIDERS.items() if p.embed_class}
DEFAULT_CHAT_MODELS = {name: p.default_chat_model for name, p in PROVIDERS.items() if p.chat_class}


def make_embedder(settings: Settings, name: str | None = None) -> Embedder:
    """An embedder for `name` ("local:all-MiniLM-L6-v2", as recorded in a store) or for the settings."""
    provider, _, model = (name or embedder_name(settings)).partition(":")
    entry = PROVIDERS.get(provider)
    if entry is None or not entry.embed_class:
        raise InputError(f"unknown embedder {name!r}")
    if not entry.key_field:  # a local model: no key, runs on this machine (ONNX, or torch when asked)
        if settings.embedding.runtime == "torch" and entry.torch_module:
            return load(f"{entry.torch_module}:{entry.embed_class}")(model=model, **_batch(settings),
                                                                     device=settings.embedding.device)
        return load(f"{entry.module}:{entry.embed_class}")(model=model, **_batch(settings))
    return load(f"{entry.module}:{entry.embed_class}")(settings.llm, model=model, **_batch(settings))


def _batch(settings: Settings) -> dict:
    """The batch size asked for, or nothing: each embedder's own default (embedding.batch_size = 0)."""
    size = settings.embedding.batch_size
    return {"batch_size": size} if size and size > 0 else {}


def make_chat(settings: Settings, model: str | None = None) -> ChatModel | None:
    """The chat model, wrapped in the response cache when enabled; None when no LLM is configured."""
    provider = settings.llm_provider
    if provider == NONE:
        return None
    entry = PROVIDERS.get(provider)
    if entry is None or not entry.chat_class:
        raise InputError(f"unknown LLM provider {provider!r}")
    model = model or chat_model_name(settings)
    chat: ChatModel = load(f"{entry.module}:{entry.chat_class}")(settings.llm, model=model)
    if settings.llm.cache:
        chat = CachedChat(chat, settings.cache_dir, provider=provider)
    return chat


def make_reranker(settings: Settings) -> Reranker | None:
    """The reranking model a reranker of the table calls through a provider (Cohere Rerank), when the
    settings choose one; None for the others (the LLM listwise reranker uses the chat model)."""
    choice = RERANKERS.get(settings.reranker)
    if choice is None or not choice.provider:
        return None
    entry = PROVIDERS[choice.provider]
    return load(f"{entry.module}:{entry.rerank_class}")(settings.llm, model=getattr(settings.retrieval, choice.model_setting))


def make_providers(settings: Settings, embedder_name_in_store: str | None = None) -> Providers:
    judge_model = settings.eval.judge_model or None
    chat = make_chat(settings)
    return Providers(
        embedder=make_embedder(settings, embedder_name_in_store),
        chat=chat,
        reranker=make_reranker(settings),
        judge=make_chat(settings, judge_model) if judge_model and chat is not None else chat,
    )
