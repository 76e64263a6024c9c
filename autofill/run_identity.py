"""One declared run: everything that changes a run's answers, in one frozen object (issue 44).

`declare(settings, plan)` gives a `DeclaredRun`: the resolved plan (model, provider, endpoint, embedder,
retrieval mode, reranker, second stage ...), the price the run puts on its model, the prompt templates,
the versions of the indexes a search reads, and every setting that changes answers, enumerated from the
Settings dataclasses: every field of every section is declared unless `NOT_ANSWERS` below says why it
does not change a row's answer, so a setting added later is part of the run until someone says otherwise.

Everything that names a run is derived from it, never spelled again elsewhere:

- the checkpoint key of `autofill run` (`DeclaredRun.key(documents)`, answer/pipeline.py),
- batch's run key (`DeclaredRun.key(documents, questionnaire_sha)`, portfolio/plan.py),
- the Run info rows that record the plan (`DeclaredRun.run_info()`, answer/run_report.py) and their
  reader (`recorded_settings`, which the review page's re-answer uses: review_app/reanswer.py),
- what `autofill config` says a run with these settings is (config_view.py).

The Run info sheet keeps its readable rows ("retrieval mode", "reranker" ...) and adds `run settings`:
the declared settings as JSON (`section.field` -> value; URLs without credentials, never a key), which
the reader lays over the settings one by one, except those the command line named."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping

from autofill import choices
from autofill.choices import PROVIDERS, RERANKERS, SECOND_STAGES
from autofill.errors import InputError
from autofill.ingest import chunking
from autofill.plan import Plan, resolve_plan
from autofill.providers.cost import pricing_for
from autofill.redact import safe_url, safe_url as mask_url, url_identity
from autofill.search.searches import Index, declared_searches, lines
from autofill.settings import SECTIONS, Secret, Settings, _coerce
from autofill.store.bm25_index import TOKENS_VERSION
from autofill.store.multilingual import MODEL

# Bump when answering logic changes in a way that makes old checkpoints wrong.
PIPELINE_VERSION = 2  # 2: the checkpoint and batch keys are the declared run's (issue 44)
TEMPLATES = ("hyde", "hyde_system", "rerank", "rerank_system", "answer", "answer_system")

PRICE_ROW, UNKNOWN_PRICE = "llm price (usd per 1m tokens in / out)", "unknown"
SETTINGS_ROW = "run settings"  # the Run info row holding the declared settings as JSON

# Settings that do NOT change a row's answer, each with why. A section named alone ("store") covers all
# its fields. Every other setting is part of the declared run (tests/test_run_identity.py changes each in
# turn and checks that the checkpoint key, batch's key, the Run info rows and `config` all follow).
NOT_ANSWERS: dict[str, str] = {
    # How documents are read into the store: what changes a stored passage is in the store's documents
    # (each one's sha256 and chunking fingerprint are part of the key), not in today's ingest settings.
    "ingest": "read at ingest; the stored documents' chunking fingerprints are in the key",
    # The store's own embedder searches (plan.embedder, in the key); the rest is speed and memory.
    "embedding": "the store's embedder is the plan's (in the key); batch size, device, runtime and the "
                 "query cache change speed only",
    "store": "where the store is and how long to wait for its lock",
    "llm.api_key": "a secret: never declared (the endpoint is)",
    "llm.cohere_api_key": "a secret: never declared (the endpoint is)",
    "llm.timeout_s": "how calls are made, not what they ask",
    "llm.max_retries": "how calls are made, not what they ask",
    "llm.retry_base_delay_s": "how calls are made, not what they ask",
    "llm.concurrency": "how many calls at once",
    "llm.cache": "whether a reply is asked again or read from the cache: the same question either way",
    "llm.azure_api_version": "the API version of the same deployment (the model is its name)",
    "workbook": "which cells hold the rows (a row's own text is in its key) and the history kept",
    "cost": "the price is declared (Run info, re-answer) but prices no answer: not in the key",
    "portfolio": "how a batch schedules companies and estimates tokens",
    "eval": "`autofill eval`'s judge and tolerances, not a run's",
    "run.confirm_rows": "when to ask before paying",
    "run.confirm_above_usd": "when to ask before paying",
    "library.learn_from_runs": "what the library learns from a run's approved rows, after it",
}

# Declared with the value the plan resolved: `auto` depends on which keys the environment holds, and a
# choice that cannot run (multi-query without a model, the multilingual index without its package) is
# the same run as that choice off. The Run info's readable rows record these; the reader takes them there.
_RESOLVED = {"llm.provider": lambda plan: plan.provider, "llm.model": lambda plan: plan.model,
             "retrieval.mode": lambda plan: plan.mode.name, "retrieval.reranker": lambda plan: plan.reranker.name,
             "retrieval.multi_query": lambda plan: plan.multi_query,
             "retrieval.multilingual_index": lambda plan: plan.multilingual_index,
             "retrieval.translate_queries": lambda plan: plan.query_translation,
             "retrieval.centre_queries": lambda plan: plan.query_centring,
             "retrieval.second_stage": lambda plan: plan.second_stage.name}
_URLS = ("llm.base_url", "llm.cohere_base_url")


def setting_names(settings: Settings | None = None) -> list[str]:
    """Every setting ("section.field") of the Settings dataclasses, in declaration order."""
    settings = settings or Settings()
    return [f"{name}.{f.name}" for name in SECTIONS for f in dataclasses.fields(getattr(settings, name))]


def changes_answers(name: str) -> bool:
    """Whether the setting `name` ("retrieval.candidates") is part of the declared run."""
    return name not in NOT_ANSWERS and name.split(".", 1)[0] not in NOT_ANSWERS


def answer_settings(settings: Settings | None = None) -> list[str]:
    return [n for n in setting_names(settings) if changes_answers(n)]


def _plain(value: Any) -> Any:
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def price_of(settings: Settings, plan: Plan) -> str:
    """The price this run puts on its model, "in / out" USD per million tokens, "unknown", or "" without one."""
    if not plan.has_model:
        return ""

    price = pricing_for(settings).price(plan.model)
    return f"{price[0]:g} / {price[1]:g}" if price is not None else UNKNOWN_PRICE


def _index_versions(plan: Plan) -> tuple[tuple[str, str], ...]:
    """The versions of what a search reads besides the documents: BM25's tokens, the snapshot's searches,
    the multilingual index's model and the second stage's models (when the plan uses them)."""
    out = [("chunker", str(chunking.CHUNKER_VERSION)), ("bm25 tokens", str(TOKENS_VERSION))]
    if plan.multilingual_index:
        out.append(("multilingual", MODEL))
    if plan.second_stage.signals:
        from autofill.providers.colbert import MODEL_NAME as COLBERT
        from autofill.providers.cross_encoder import MODEL_NAME as CROSS

        out.append(("second stage", f"{COLBERT}; {CROSS}"))
    return tuple(out)


@dataclass(frozen=True)
class DeclaredRun:
    """What changes a run's answers (see the module docstring). `settings`: ("section.field", value)
    for every setting that changes answers, URLs without credentials; `secret_urls`: the whole URLs'
    identities (redact.url_identity) so two endpoints differing only in a secret part differ here too."""

    plan: Plan
    settings: tuple[tuple[str, Any], ...]
    price: str
    templates: tuple[tuple[str, str], ...]  # template name -> SHA-256 of its source (with a model)
    versions: tuple[tuple[str, str], ...]
    secret_urls: tuple[tuple[str, str], ...] = ()

    def value(self, name: str) -> Any:
        return dict(self.settings)[name]

    def _identity(self) -> dict[str, Any]:
        plan = self.plan.to_json()
        plan.pop("why", None)
        return {"version": PIPELINE_VERSION, "plan": plan, "settings": dict(self.settings),
                "urls": dict(self.secret_urls), "templates": dict(self.templates), "versions": dict(self.versions)}

    def searches(self) -> list[tuple[str, list[Any]]]:
        """The first stage's searches of a row (search/searches.py `Search`), in the order they are fused: a row
        in its reports' language ("searches"), and with the multilingual index a row across languages."""
        from autofill.search.multiquery import QUERIES

        plan, r = self.plan, dict(self.settings)
        common = dict(mode=plan.mode, query_parts=r["retrieval.query_parts"],
                      keyword_weight=r["retrieval.keyword_weight"], synonyms=r["retrieval.synonyms"],
                      hyde=plan.mode.uses_hyde and plan.has_model,
                      extra_queries=QUERIES if plan.multi_query and plan.has_model else 0)
        out = [("searches", declared_searches(**common))]
        if plan.multilingual_index:
            index = Index.CENTRED if plan.query_centring else Index.MULTILINGUAL
            out.append(("searches across languages",
                        declared_searches(**common, index=index, translated=plan.query_translation)))
        return out

    def key(self, documents: Mapping[str, Any] | None = None, questionnaire_sha: str = "") -> str:
        """The run's key: this declaration, the store's documents (name, bytes, chunking) and, for batch,
        the questionnaire's bytes (a run's checkpoint is named by them already)."""
        docs = sorted((d.file_name, d.sha256, d.chunking) for d in (documents or {}).values())
        blob = json.dumps({**self._identity(), "documents": docs, "questionnaire": questionnaire_sha},
                          sort_keys=True, default=str, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    def settings_json(self) -> str:
        return json.dumps(dict(self.settings), sort_keys=True, ensure_ascii=False)

    def run_info(self) -> dict[str, Any]:
        """The Run info rows that record the plan, in the sheet's order, and `run settings` (the JSON
        `recorded_settings` reads back)."""
        plan, r = self.plan, dict(self.settings)
        depth = r["retrieval.second_stage_depth"]
        keyword = plan.mode.uses_keyword
        return {
            "llm provider": plan.provider if plan.has_model else "none (evidence-only drafts)",
            "llm model": plan.model or "none",
            # The endpoint without credentials (redact.safe_url): a re-answer in `autofill review` uses it.
            "llm base url": safe_url(plan.base_url) if plan.has_model else "",
            "llm endpoint": plan.endpoint if plan.has_model else "",
            PRICE_ROW: self.price,
            "temperature": r["llm.temperature"],
            "embedder": plan.embedder,
            "retrieval mode": plan.mode.name,
            "reranker": plan.reranker_label,
            "multi-query": "on" if plan.multi_query else "off",
            "content index": "on" if plan.content_index else "off",
            "multilingual index": "on" if plan.multilingual_index else "off",
            "query translation": "on" if plan.query_translation else "off",
            "query centring": "on" if plan.query_centring else "off",
            # "colbert-question+cross-encoder (first 10)": a re-answer orders its candidates as this run did
            "second stage": plan.second_stage.name + (f" (first {depth})" if plan.second_stage.signals and depth
                                                      else ""),
            "candidates": r["retrieval.candidates"],
            "final k": r["retrieval.final_k"],
            "rrf k": r["retrieval.rrf_k"],
            "keyword weight": f"{r['retrieval.keyword_weight']:g}" if keyword else "none (one list)",
            "keyword query": ("clean" + (" + synonyms" if r["retrieval.synonyms"] else "")) if keyword else "none",
            "rerank window": r["retrieval.rerank_window"],
            **{name: "\n".join(lines(found)) for name, found in self.searches()},
            SETTINGS_ROW: self.settings_json(),
            "index versions": "; ".join(f"{k} {v}" for k, v in self.versions),
        }


FORM_TEMPLATES = ("form_answer",)  # the prompt a form's datapoint is answered with (forms/answer.py)


def declare(settings: Settings, plan: Plan, form: bool = False) -> DeclaredRun:
    """The declared run of `settings` under its resolved `plan` (plan.resolve_plan); `form`: the
    questionnaire is a form, whose datapoints are answered with FORM_TEMPLATES too."""
    from autofill.templating import template_source

    values: list[tuple[str, Any]] = []
    secret_urls: list[tuple[str, str]] = []
    for name in answer_settings(settings):
        section, field = name.split(".", 1)
        value = getattr(getattr(settings, section), field)
        if name in _RESOLVED:
            value = _RESOLVED[name](plan)
        elif name in _URLS:
            secret = url_identity(str(value or "")).get("url_sha256", "")
            if secret:
                secret_urls.append((name, secret))
            value = safe_url(str(value or ""))
        values.append((name, _plain(value)))
    names = TEMPLATES + (("multiquery",) if plan.multi_query else ()) + (FORM_TEMPLATES if form else ())
    templates = tuple((t, hashlib.sha256(template_source(settings.templates_dir, t).encode()).hexdigest())
                      for t in names) if plan.has_model else ()
    return DeclaredRun(plan=plan, settings=tuple(values), price=price_of(settings, plan), templates=templates,
                       versions=_index_versions(plan), secret_urls=tuple(secret_urls))


def declare_settings(settings: Settings, embedder: str = "", form: bool = False) -> DeclaredRun:
    """The declared run of `settings` alone (batch plans, `config`): the plan resolved from them."""
    return declare(settings, resolve_plan(settings, embedder=embedder), form=form)


# ---------------------------------------------------------------------------- the plan a run recorded

# The Run info rows that record the plan are DeclaredRun.run_info's ("llm provider", "llm model", "llm base
# url", "retrieval mode", "reranker", "multi-query", "content index", "multilingual index", "query
# translation", "second stage", PRICE_ROW and SETTINGS_ROW); workbooks of earlier versions lack the last.


def recorded_settings(settings: Settings, run_info: Mapping[str, str]) -> Settings:
    """`settings` with the plan a workbook's run recorded in its Run info (`run_info`: row -> value):
    provider, model and base URL, retrieval mode, reranker, multi-query, content and multilingual index,
    query translation, second stage and the model's price, each
    unless the command line named it (settings.origins kind "flag"). A run without a model recorded no
    plan to answer with: the settings stand. The API key is kept only where the recorded endpoint is the
    one the settings point the provider at (a workbook must never send a key to another server)."""
    info = {str(k).strip().lower(): str(v).strip() for k, v in run_info.items()}
    provider, model = info.get("llm provider", ""), info.get("llm model", "")
    entry = PROVIDERS.get(provider)
    if entry is None or not entry.chats or not model or model == "none":
        return settings
    given = {key for key, (kind, _label) in settings.origins.items() if kind == "flag"}
    if "llm.provider" in given and settings.llm.provider != provider:
        return settings  # another provider asked for: nothing of this run's model applies
    llm, retrieval, cost = (dataclasses.replace(settings.llm), dataclasses.replace(settings.retrieval),
                            dataclasses.replace(settings.cost, prices=dict(settings.cost.prices or {})))
    llm.provider = provider
    if "llm.model" not in given:
        llm.model = model
        _recorded_price(cost.prices, model, info.get(PRICE_ROW, ""))
    _recorded_endpoint(llm, entry, info.get("llm base url", ""))
    mode, reranker = info.get("retrieval mode", ""), info.get("reranker", "")
    if mode and "retrieval.mode" not in given:
        retrieval.mode = mode
    if reranker and "retrieval.reranker" not in given:
        name, _, rest = reranker.partition(" (")
        retrieval.reranker = name.strip()

        choice = RERANKERS.get(retrieval.reranker)
        if rest and choice is not None and choice.model_setting:
            setattr(retrieval, choice.model_setting, rest.rstrip(")").strip())
    for row, name in (("multi-query", "multi_query"), ("content index", "content_index"),  # on / off rows
                      ("multilingual index", "multilingual_index"), ("query translation", "translate_queries"),
                      ("query centring", "centre_queries")):
        if info.get(row) in ("on", "off") and f"retrieval.{name}" not in given:
            setattr(retrieval, name, info[row] == "on")
    _recorded_second_stage(retrieval, info.get("second stage", ""), given)
    out = dataclasses.replace(settings, llm=llm, retrieval=retrieval, cost=cost)
    return _recorded_declaration(out, info.get(SETTINGS_ROW, ""), given)


# Choices whose value must be a row of its table; one a later version added leaves the settings' own.
_TABLES = {"retrieval.mode": "RETRIEVAL_MODES", "retrieval.reranker": "RERANKERS",
           "retrieval.second_stage": "SECOND_STAGES"}


def _recorded_declaration(settings: Settings, recorded: str, given: set[str]) -> Settings:
    """Every setting the run declared (SETTINGS_ROW, JSON) laid over `settings`, except those the command
    line named, the model and endpoint (read above, with the key's safety rule), settings this version
    does not have and values it cannot read. A workbook without the row (an earlier version): as it is."""
    try:
        declared = json.loads(recorded) if recorded else {}
    except ValueError:
        return settings
    if not isinstance(declared, dict):
        return settings
    sections: dict[str, Any] = {}
    known = set(answer_settings(settings))
    for name, value in declared.items():
        if name not in known or name in given or name in _RESOLVED or name in _URLS:
            continue
        table = _TABLES.get(name)
        if table and value != choices.AUTO and value not in getattr(choices, table):
            continue
        section, field = name.split(".", 1)
        target = sections.setdefault(section, dataclasses.replace(getattr(settings, section)))
        try:
            setattr(target, field, _coerce(value, getattr(target, field), name))
        except InputError:
            continue
    return dataclasses.replace(settings, **sections) if sections else settings


def _recorded_second_stage(retrieval: Any, recorded: str, given: set[str]) -> None:
    """The run's second stage and depth ("colbert-question+cross-encoder (first 10)", "none"); a value
    not in choices.SECOND_STAGES (a workbook of a later version) leaves the settings' own."""
    name, _, rest = recorded.partition(" (first ")
    if name.strip() not in SECOND_STAGES or "retrieval.second_stage" in given:
        return
    retrieval.second_stage = name.strip()
    depth = rest.rstrip(")").strip()
    if "retrieval.second_stage_depth" not in given:
        retrieval.second_stage_depth = int(depth) if depth.isdigit() else 0


def _recorded_price(prices: dict[str, list[float]], model: str, recorded: str) -> None:
    """The run's price for `model` into `prices` ("0.15 / 0.6"), or none when the run had none."""
    if recorded == UNKNOWN_PRICE:
        prices.pop(model, None)
        return
    try:
        prices[model] = [float(x) for x in recorded.split("/")]
    except ValueError:
        return  # not recorded (a workbook written before this row existed): priced as the settings say
    if len(prices[model]) != 2:
        prices.pop(model)


def _recorded_endpoint(llm: Any, entry: Any, recorded: str) -> None:
    """Point the provider at the base URL the run used ("" its default endpoint); its key goes with it
    only when the settings already point there."""
    if not entry.url_field:
        return
    configured = str(getattr(llm, entry.url_field, "") or "")
    if mask_url(configured).rstrip("/") == recorded.rstrip("/"):
        return  # the same endpoint (credentials in its URL included)
    if "***" in recorded:
        raise InputError(f"the run used an endpoint whose URL carried credentials ({recorded}); set "
                         f"{entry.url_env} to it, or choose a model with --llm/--model")
    setattr(llm, entry.url_field, recorded)
    if entry.key_field:
        setattr(llm, entry.key_field, Secret(""))
