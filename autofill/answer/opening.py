"""What a run is, in one place: `open_run` opens everything answering rows needs (the store a run
reads, its documents, the clients with the store's own embedder behind the query cache, the resolved
plan, the reranker, the cost meter at the endpoint's prices, the trust checks, the page locator) and
says what it will use. `autofill run` (answer/pipeline.py, and so `batch` on both engines, which call
it per company with their shared clients), `autofill ask` (answer/ask.py) and the review app's
re-answer (review_app/reanswer.py) all open their run here; a server answering rows would too.

    opened = open_run(settings, company)            # providers=None: built from the settings
    opened.announce(say)                            # the plan's first line, then its warnings
    result = opened.answer(row)                     # answer_row + checks and tier + bad replies forgotten

The re-answer of a workbook uses the plan its run recorded in the Run info sheet (`recorded_settings`):
model, provider and endpoint, retrieval, reranker, multi-query and the price, each unless the command
line named it (`review --model`, `--llm`)."""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from autofill.answer.pages import PageLocator
from autofill.answer.rerank import PassageReranker, make_reranker
from autofill.answer.row import RowContext, answer_row
from autofill.answer.trust import Trust, make_trust
from autofill.errors import InputError
from autofill.language import languages_clause, report_language
from autofill.plan import Plan, needs_model_warnings, resolve_plan
from autofill.providers.base import Providers
from autofill.providers.cache import forget_reply, refresh_cache
from autofill.providers.cost import UsageMeter, pricing_for
from autofill.providers.factory import make_providers
from autofill.providers.local import LocalEmbedder
from autofill.providers.query_cache import with_query_cache
from autofill.records import QuestionRow, RowResult
from autofill.search.centring import centre_of, language_kinds
from autofill.search.retrieval import build_query, query_rows
from autofill.translation.translator import QueryTranslator, cache_path
from autofill.settings import Settings
from autofill.sqlite_cache import BlobCache
from autofill.store.multilingual import MODEL, MultilingualIndex, crosses, language_lines
from autofill.store.reading import open_for_reading

log = logging.getLogger(__name__)


@dataclass
class OpenedRun:
    """Everything a run's rows share (see the module docstring)."""

    settings: Settings
    company: str  # as the caller named it (the prompts say it); the store's own spelling is store.company
    store: Any  # store/reading.py: the snapshot's ReadStore, or the Chroma store
    documents: dict[str, Any]
    providers: Providers  # the query embedder is the store's own, behind the query cache
    plan: Plan
    reranker: PassageReranker
    meter: UsageMeter  # prices of the plan's endpoint (providers/cost.pricing_for): unknown, never $0
    trust: Trust
    locator: PageLocator
    multilingual: Any = None  # the store's multilingual index (store/multilingual.py), when the plan has it
    translator: Any = None  # translation/translator.QueryTranslator, when the plan translates queries
    centre: Any = None  # search/centring.Centre of the questionnaire (centre_on), for the multilingual index
    warnings: list[str] = field(default_factory=list)  # choices asked for that cannot run (no model)

    @property
    def chat(self) -> Any:
        return self.providers.chat

    def row_context(self) -> RowContext:
        return RowContext(settings=self.settings, company=self.company, store=self.store,
                          embedder=self.providers.embedder, chat=self.chat, reranker=self.reranker,
                          mode=self.plan.mode, meter=self.meter, locator=self.locator,
                          report_language=report_language(self.documents.values()),
                          second_stage=self.plan.second_stage, multilingual=self.multilingual,
                          document_languages=self.document_languages, translator=self.translator,
                          centre=self.centre)

    def centre_on(self, rows: Sequence[QuestionRow]) -> None:
        """Centre the searches of the multilingual index on the questionnaire's `rows` (all of them, as read
        from the workbook, so that a row answered alone is searched as in its run: search/centring.py).
        Their translations (translation/translator.py) are made here too, side by side, before the first row
        is answered."""
        if self.multilingual is None:
            return
        ctx = self.row_context()
        crossing = [row for row in rows if ctx.crosses(row)]
        translations = ctx.translations(crossing)
        if not self.plan.query_centring:
            return
        texts = [build_query(query_rows(self.settings, row)[0]) for row in crossing]
        self.centre = centre_of(language_kinds([row.language for row in crossing], texts, translations),
                                self.multilingual.embedder.embed_query)

    @property
    def document_languages(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d.language for d in self.documents.values() if getattr(d, "language", "")))

    def announce(self, say: Callable[[str], None] | None = None, language: str | Sequence[str] = "") -> None:
        """Say the plan's first line with the questionnaire's (`language`: a code, or each of its rows'
        languages: language.questionnaire_languages) and the documents' languages (with `say`; batch says it
        once for all companies) and warn about choices asked for explicitly that cannot run, even under
        --json: the Run info sheet is not the only place that shows HyDE or the LLM rerank did not run;
        and once per questionnaire language when the store's embedder does not read it."""
        if say is not None:
            say(f"{self.plan.first_line()}; {languages_clause(language, list(self.documents.values()))}")
        for warning in self.warnings:
            log.warning("%s", warning)
        said: set[str] = set()
        for code in ([language] if isinstance(language, str) else list(language) or [""]):
            note, warning = language_lines(self.multilingual is not None, self.store.embedder_name, self.company,
                                           code, self.document_languages)
            translation = self.translator.note(code) if note and self.translator is not None else ""
            for line, level in ((note, logging.INFO), (translation, logging.INFO), (warning, logging.WARNING)):
                if line and line not in said:
                    said.add(line)
                    log.log(level, "%s", line)

    def check(self, result: RowResult) -> RowResult:
        """A finished row's checks and tier (answer/trust.py); a reply that could not be read or failed a
        check of form is forgotten by the response cache, so the next run asks again."""
        result = self.trust.assess(result)
        if result.bad_reply and "answer" in result.replies:
            forget_reply(result.replies["answer"])
        return result

    def answer(self, row: QuestionRow) -> RowResult:
        """One row answered and checked, as every row of a run is."""
        return self.check(answer_row(self.row_context(), row))

    def cost_unknown(self) -> str:
        return self.meter.unknown_reason()


def open_run(settings: Settings, company: str, *, providers: Providers | None = None,
             fresh: bool = False) -> OpenedRun:
    """Open a run for `company` (see the module docstring). `providers`: clients made elsewhere (a
    portfolio's shared ones, tests' loopback ones); their embedder must be the store's. `fresh`
    (`run --fresh`): the model is asked again, not the response cache. InputError for a store with no
    documents, before any client is made."""
    store = open_for_reading(settings, company)  # Chroma opened only for searches not cached
    documents = store.documents()
    if not documents:
        raise InputError(f"the evidence store for {company!r} has no documents; run `autofill ingest` first")
    providers = _clients(settings, store, providers)
    chat = providers.chat
    if fresh:
        refresh_cache(chat)
    plan = resolve_plan(settings, chat=chat, embedder=store.embedder_name)
    meter = UsageMeter(pricing_for(settings))
    multilingual = _multilingual(settings, store, plan)
    return OpenedRun(settings=settings, company=company, store=store, documents=documents,
                     providers=providers, plan=plan, reranker=make_reranker(settings, plan.reranker, chat,
                                                                             providers.reranker),
                     meter=meter, trust=make_trust(settings, documents, chat, meter),
                     locator=PageLocator(documents), warnings=needs_model_warnings(settings, plan),
                     multilingual=multilingual, translator=_translator(settings, plan, multilingual, documents))


def _translator(settings: Settings, plan: Plan, multilingual: Any, documents: dict[str, Any]) -> Any:
    """The run's query translation (translation/translator.py) when the plan has it and the store has a
    multilingual index (its model chooses among a word's translations)."""
    if multilingual is None or not plan.query_translation:
        return None

    cache = None
    if settings.embedding.query_cache:
        cache = BlobCache(cache_path(settings.vectordb_dir), "translation cache")
    return QueryTranslator(settings.retrieval.dictionaries, multilingual.embedder,
                           [getattr(d, "language", "") for d in documents.values()], settings.retrieval.apertium,
                           cache)


def _multilingual(settings: Settings, store: Any, plan: Plan) -> Any:
    """The store's multilingual index when the plan has one and the store's embedder is a bundled one
    trained for fewer languages (nothing is read or embedded until a row needs it)."""
    if not plan.multilingual_index or not crosses(store.embedder_name, ["*"]):
        return None

    return MultilingualIndex(settings, store, with_query_cache(settings, LocalEmbedder(MODEL)))


def _clients(settings: Settings, store: Any, providers: Providers | None) -> Providers:
    """The clients of a run. The query embedder is always the store's own: vectors from another embedder
    would be compared with the store's in a different space; its vectors come from the workspace's query
    cache, so the model loads only when a text is new to it."""
    if providers is not None:
        store.check_embedder(providers.embedder.name)
    else:
        providers = make_providers(settings, store.embedder_name)
    return dataclasses.replace(providers, embedder=with_query_cache(settings, providers.embedder))


# The plan a run recorded in its Run info sheet is read back where it is written: autofill/run_identity.py.
from autofill.run_identity import recorded_settings  # noqa: E402  (review_app/reanswer.py, tests)
