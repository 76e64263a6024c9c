"""`autofill batch`: every company of a portfolio in one command.

Per company: ingest what changed (one ingest at a time: it is CPU work and writes the store), then
answer its questionnaire with `run_questionnaire`. Companies proceed in parallel
(`portfolio.companies_at_once`), and all their rows share ONE limit of `llm.concurrency` model slots
and one optional cost cap (budget.RowGate). A company's failure (a bad PDF, an unreadable workbook,
a store built with another embedder) is recorded with its reason and the others go on.

Resuming costs nothing twice: unchanged PDFs are skipped by the ingest, finished rows come from the
run's checkpoint (or the LLM response cache), and a company whose last run completed with the same
inputs is not run at all (plan.PortfolioState). One store is open per company being worked on, and
is dropped when that company is done, so memory does not grow with the size of the portfolio."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autofill.answer.checkpoint import safe_name
from autofill.errors import InputError
from autofill.fileio import atomic_write_bytes, ensure_writable_dir
from autofill.hashing import file_sha256
from autofill.portfolio.budget import Budget, LimitedChat, RowGate, SerialEmbedder
from autofill.plan import resolve_plan
from autofill.portfolio.estimate import PortfolioEstimate
from autofill.providers.cost import pricing_for
from autofill.usage_estimate import calibrate
from autofill.portfolio.index import write_index
from autofill.portfolio.manifest import read_manifest
from autofill.portfolio.outcome import (DONE, FAILED, INCOMPLETE, PENDING, RUN_COUNTS, UP_TO_DATE, CompanyOutcome,
                                       PortfolioReport)
from autofill.portfolio.outcome import form_outcome_counts
from autofill.portfolio.plan import CompanyPlan, PortfolioState, company_settings, plan_company, run_key
from autofill.portfolio.workbook import write_portfolio_workbook
from autofill.providers.base import Providers
from autofill.providers.factory import chat_model_name, make_chat, make_embedder, make_reranker
from autofill.records import stages_json
from autofill.reporting import Reporter, as_reporter
from autofill.settings import Settings
from autofill.store.chroma_store import find_store
from autofill.store.reading import find_for_reading
from autofill.usage_estimate import CompanyEstimate
from autofill.portfolio.plan import output_for

log = logging.getLogger(__name__)

@dataclass
class Prepared:
    """A portfolio read and priced: what `--estimate` shows and `run_portfolio` works through."""

    manifest: Path
    out_dir: Path
    plans: list[CompanyPlan]
    estimate: PortfolioEstimate
    state: PortfolioState


def default_out_dir(settings: Settings, manifest: Path) -> Path:
    return settings.reports_dir / safe_name(Path(manifest).stem)


def prepare(settings: Settings, manifest: Path | str, out_dir: Path | None = None,
            only: list[str] | None = None) -> Prepared:
    """Read the manifest and price every company, without any model call. A company that cannot be
    planned (unreadable questionnaire) carries the reason and fails alone when run."""
    manifest = Path(manifest)
    entries = read_manifest(manifest, only)
    out = Path(out_dir) if out_dir else default_out_dir(settings, manifest)  # made by run_portfolio
    state = PortfolioState(out)
    plans = []
    for entry in entries:
        try:
            # Each company's workbook is where `run` (with the same --out) writes it: plan.output_for.
            plans.append(plan_company(settings, entry, out_dir, state))
        except InputError as exc:

            model = resolve_plan(settings).model
            plans.append(CompanyPlan(entry=entry, output=output_for(settings, entry, out_dir),
                                     estimate=CompanyEstimate(entry.company, model, error=str(exc))))
    check_collisions(plans)
    return Prepared(manifest, out, plans, PortfolioEstimate([p.estimate for p in plans]), state)


def check_collisions(plans: list[CompanyPlan]) -> None:
    """Refuse (InputError, exit 2) a manifest in which two companies would write one output, before
    anything runs: one line per collision. Paths are compared case-insensitively (macOS and Windows
    file systems are), after the suffix the writer gives them."""
    from autofill.workbook.writeback import output_file

    by_path: dict[str, list[str]] = {}
    shown: dict[str, Path] = {}
    for plan in plans:
        path = output_file(plan.entry.questionnaire, plan.output, "xlsx").resolve()
        key = str(path).casefold()
        by_path.setdefault(key, []).append(plan.entry.company)
        shown[key] = path
    lines = [f"companies {', '.join(repr(c) for c in companies)} would all write {shown[key]}; give each its own "
             f"output column value in the manifest" for key, companies in by_path.items() if len(companies) > 1]
    if lines:
        raise InputError("\n".join(lines))


class _Shared:
    """What the companies of one portfolio run share: clients, slots, budget, the ingest turn."""

    def __init__(self, settings: Settings, budget: Budget, embedder: Any = None, limiter: Any = None) -> None:
        self.settings = settings
        # `limiter`/`budget`: a context-manager semaphore and a Budget, or their cluster-wide stand-ins
        # (portfolio/ray_engine.py).
        self.limiter = limiter if limiter is not None else threading.BoundedSemaphore(settings.llm.concurrency)
        self.budget = budget
        self.stop = threading.Event()
        self.ingest_lock = threading.Lock()
        chat = make_chat(settings)
        self.chat = LimitedChat(chat, self.limiter) if chat is not None else None
        self.reranker = make_reranker(settings)  # a rerank API client when the settings choose one, else None
        self._embedders: dict[str, Any] = {}
        self._embedders_lock = threading.Lock()
        self._injected = SerialEmbedder(embedder) if embedder is not None else None

    def embedder(self, name: str) -> Any:
        """The one shared embedder for stores built with `name` (or the injected one for all)."""
        if self._injected is not None:
            return self._injected
        with self._embedders_lock:
            if name not in self._embedders:
                self._embedders[name] = SerialEmbedder(make_embedder(self.settings, name))
            return self._embedders[name]

    def ingest(self, settings: Settings, company: str, reports: list[Any], embedder: Any) -> Any:
        """Ingest a company's reports here (the Ray engine stores documents embedded on its workers)."""
        from autofill.ingest.pipeline import ingest_paths

        return ingest_paths(settings, company, reports, embedder=embedder)


@dataclass
class EngineRun:
    outcomes: dict[str, CompanyOutcome]  # by company name, one per plan
    cap_reached: bool  # the budget refused a row or an ingest: some work stays pending


def company_done(reporter: Reporter, bar: Any, outcome: CompanyOutcome) -> None:
    """The driver's progress for one finished company, the same line whichever engine ran it."""
    bar.advance()
    bar.note(outcome.company)
    if outcome.status != FAILED:  # failures: in the report, which the CLI shows on stderr
        # The same words and counts as this company's line in the summary (PortfolioReport.describe).
        reporter.message(f"{outcome.company}: {outcome.status}, {outcome.counts()}, {outcome.cost_text()}")


class LocalEngine:
    """Companies in a thread pool of this process (see the module docstring)."""

    name = "local"

    def run(self, settings: Settings, prepared: Prepared, budget: Budget, reporter: Reporter,
            embedder: Any = None) -> EngineRun:
        # Calls of every company share the llm.concurrency slots; each company's own pool may use them all.
        shared = _Shared(settings, budget, embedder)
        bar = reporter.bar("Companies", len(prepared.plans), "companies")
        outcomes: dict[str, Any] = {}
        pool = cf.ThreadPoolExecutor(max_workers=settings.portfolio.companies_at_once,
                                     thread_name_prefix="autofill-co")
        try:
            futures = {pool.submit(_run_company, shared, prepared, plan): plan for plan in prepared.plans}
            for future in cf.as_completed(futures):
                outcome = future.result()
                outcomes[outcome.company] = outcome
                company_done(reporter, bar, outcome)
        except BaseException:
            shared.stop.set()  # rows not yet started stay pending; rows in flight finish their call
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            bar.close()
        pool.shutdown(wait=True)
        return EngineRun(outcomes, shared.budget.exhausted)


def run_portfolio(settings: Settings, prepared: Prepared, max_cost: float | None = None,
                  reporter: Reporter | None = None, embedder: Any = None, engine: Any = None) -> PortfolioReport:
    """Work through every company of `prepared`; see the module docstring. `embedder`: inject one
    (tests); by default each store's own embedder is built once and shared. `engine`: where the companies
    run (portfolio/engine.make_engine; default LocalEngine, threads in this process)."""
    t0 = time.monotonic()
    rep = as_reporter(reporter)
    ensure_writable_dir(prepared.out_dir)  # before any model call
    rep.message(resolve_plan(settings).first_line())  # what every company's run uses
    engine = engine if engine is not None else LocalEngine()
    done = engine.run(settings, prepared, Budget(max_cost), rep, embedder)
    outcomes = done.outcomes
    ordered = [outcomes[p.entry.company] for p in prepared.plans]
    report = PortfolioReport(manifest=prepared.manifest, outcomes=ordered, estimate=prepared.estimate,
                             seconds=0.0, cap_reached=done.cap_reached, engine=engine.name,
                             extra=dict(getattr(engine, "last", {})))
    stem = prepared.manifest.stem
    report.workbook, counts = write_portfolio_workbook(settings, prepared.out_dir / f"{stem}_overview.xlsx", ordered)
    report.index = write_index(prepared.out_dir / "index.html", stem, ordered, report.to_json(), counts)
    report.seconds = time.monotonic() - t0
    return report


def _run_company(shared: _Shared, prepared: Prepared, plan: CompanyPlan) -> CompanyOutcome:
    entry, est = plan.entry, plan.estimate
    t0 = time.monotonic()
    base = CompanyOutcome(company=entry.company, status=DONE, year=entry.year, output=str(plan.output),
                          questionnaire=str(entry.questionnaire))
    if plan.estimate.up_to_date:  # not run: its counts are those of the run that finished it
        prev = dict(plan.previous)
        prev.update(status=UP_TO_DATE, new_documents=0, cost_usd=0.0, seconds=0.0, stages={}, year=entry.year,
                    questionnaire=str(entry.questionnaire),
                    last_cost_usd=prev.get("last_cost_usd", prev.get("cost_usd", 0.0)),
                    last_seconds=prev.get("last_seconds", prev.get("seconds", 0.0)))
        known = {f.name for f in dataclasses.fields(CompanyOutcome)}
        return CompanyOutcome(**{k: v for k, v in prev.items() if k in known})
    if est.error:
        return dataclasses.replace(base, status=FAILED, error=est.error, output="")
    if shared.budget.exhausted or shared.stop.is_set():
        return dataclasses.replace(base, status=PENDING, pending_rows=est.rows, rows=est.rows + est.rows_done,
                                   output=str(plan.output) if plan.output.is_file() else "")
    try:
        return _ingest_and_run(shared, prepared, plan, base, t0)
    except InputError as exc:
        return dataclasses.replace(base, status=FAILED, error=str(exc), output="", seconds=time.monotonic() - t0)
    except Exception as exc:  # noqa: BLE001 - one company's failure must not stop the portfolio
        log.debug("company %s failed", entry.company, exc_info=True)
        return dataclasses.replace(base, status=FAILED, error=f"{type(exc).__name__}: {exc}", output="",
                                   seconds=time.monotonic() - t0)


def _ingest_and_run(shared: _Shared, prepared: Prepared, plan: CompanyPlan, base: CompanyOutcome,
                    t0: float) -> CompanyOutcome:
    from autofill.answer.pipeline import run_questionnaire
    from autofill.ingest.planning import embedder_for

    settings, entry = shared.settings, plan.entry
    new_documents = 0
    ingest_usage: dict[str, Any] = {}  # the ingest's model calls (ingest.contextualize), counted with the run's
    if plan.to_ingest or find_for_reading(settings, entry.company) is None:
        reserved = plan.estimate.ingest_cost_usd  # contextualising the new files (ingest.contextualize)
        if reserved and not shared.budget.reserve(reserved):
            raise InputError(f"contextualising its new reports would cost about ${reserved:.4f}, more than is "
                             f"left of --max-cost; nothing was ingested")
        with shared.ingest_lock:
            store = find_store(settings, entry.company)
            name = embedder_for(settings, store.embedder_name if store is not None else None)
            del store
            actual = reserved  # charged in full if the ingest stops midway: what it spent is unknown then
            try:
                ingest = shared.ingest(settings, entry.company, list(entry.reports), shared.embedder(name))
                actual = sum(u.cost_usd for u in ingest.usage.values())
            finally:
                if reserved:
                    shared.budget.settle(reserved, actual)
        ingest_usage = dict(ingest.usage)
        bad = [f for f in ingest.files if f.status == "failed"]
        if bad:
            # Answering from part of a company's reports would look complete and be wrong: stop here,
            # before any model call, and say which file and why.
            raise InputError("; ".join(f"{Path(f.path).name}: {f.error}" for f in bad))
        new_documents = ingest.count("new", "replaced")
    store = find_for_reading(settings, entry.company)
    if store is None:
        raise InputError(f"no evidence store for {entry.company!r} after ingesting its reports")
    embedder_name = store.embedder_name
    del store
    providers = Providers(embedder=shared.embedder(embedder_name), chat=shared.chat, reranker=shared.reranker)
    gate = RowGate(None, shared.budget, plan.estimate.cost_per_row, shared.stop)  # slots: per call (LimitedChat)
    _take_over_batch_copy(plan)
    settings = company_settings(settings, entry)  # the manifest's year: the questionnaire's reporting year
    if plan.form is not None:
        return _run_form_company(shared, prepared, plan, base, t0, settings, providers, new_documents, ingest_usage,
                                 gate)
    report = run_questionnaire(settings, entry.company, entry.questionnaire, out_dir=prepared.out_dir,
                               providers=providers, gate=gate, output=plan.output, announce=False)
    calibrate(settings, plan.estimate, report.usage)
    store = find_for_reading(settings, entry.company)
    documents = store.documents() if store is not None else {}
    del store
    cost = report.totals().cost_usd + sum(u.cost_usd for u in ingest_usage.values())
    seconds = time.monotonic() - t0
    outcome = dataclasses.replace(
        base, status=DONE if report.ok else INCOMPLETE, output=str(report.output),
        report=str(report.report_html or ""), documents=len(documents), periods=_periods(documents),
        new_documents=new_documents, **{name: getattr(report, attr) for name, attr in RUN_COUNTS.items()},
        cost_usd=cost, seconds=seconds, last_cost_usd=cost, last_seconds=seconds,
        stages=stages_json({**report.usage, **ingest_usage}),
        cost_unknown=_cost_unknown(shared.settings, report, ingest_usage))
    # Complete as `run` is ok (no failed or unparsed row) with none pending: the next batch does not
    # run it again unless its inputs or its workbook (a reviewer's decisions) change.
    complete = report.ok and not report.pending
    key = run_key(settings, file_sha256(entry.questionnaire), documents)
    prepared.state.put(entry.company, {**outcome.to_json(), "key": key, "complete": complete,
                                       "output_sha256": file_sha256(report.output)})
    return outcome


def _run_form_company(shared: _Shared, prepared: Prepared, plan: CompanyPlan, base: CompanyOutcome, t0: float,
                      settings: Settings, providers: Any, new_documents: int,
                      ingest_usage: dict[str, Any], gate: Any = None) -> CompanyOutcome:
    """A company whose questionnaire is a form: filled by forms/run.run_form, the path `autofill run` takes
    on that form (one filled copy, where `run` writes it), its datapoints counted in run's words. A form
    has no checkpoint: a company is resumed whole (an up-to-date one is not run; the others are run again,
    the model's replies coming from the response cache)."""
    from autofill.forms.answer import Decision
    from autofill.forms.run import run_form

    entry = plan.entry
    report = run_form(settings, entry.company, entry.questionnaire, output=plan.output, providers=providers,
                      form=plan.form, gate=gate)  # the cost cap, datapoint by datapoint (RowGate)
    calibrate(settings, plan.estimate, report.usage)
    store = find_for_reading(settings, entry.company)
    documents = store.documents() if store is not None else {}
    del store
    usage = {**report.usage, **ingest_usage}
    cost = sum(u.cost_usd for u in usage.values())
    unknown = ""
    if any(u.unpriced_calls for u in usage.values()):
        unknown = pricing_for(settings).unknown_reason([chat_model_name(settings)]) or "no price for the model"
    seconds = time.monotonic() - t0
    outcome = dataclasses.replace(
        base, status=DONE if report.ok else INCOMPLETE, output=str(report.output), documents=len(documents),
        periods=_periods(documents), new_documents=new_documents,
        **form_outcome_counts(report.counts, report.datapoints, report.evidence_only),
        cost_usd=cost, seconds=seconds, last_cost_usd=cost, last_seconds=seconds, stages=stages_json(usage),
        cost_unknown=unknown)
    key = run_key(settings, file_sha256(entry.questionnaire), documents, form=True)
    pending = report.counts.get(Decision.PENDING.value, 0)
    if pending:
        outcome = dataclasses.replace(outcome, status=INCOMPLETE)
    prepared.state.put(entry.company, {**outcome.to_json(), "key": key, "complete": report.ok and not pending,
                                       "output_sha256": file_sha256(report.output)})
    return outcome


def _take_over_batch_copy(plan: CompanyPlan) -> None:
    """A workbook an earlier batch wrote in its own folder (before batch wrote where `run` does), when `run`'s
    place holds none yet: copied there first, so the reviewers' decisions in it are kept (the copy stays)."""
    earlier = Path(plan.previous.get("output") or "")
    target = plan.output.with_suffix(earlier.suffix)  # the suffix the writer gave it (.xlsx, .xlsm)
    if not earlier.is_file() or target.exists() or earlier.resolve() == target.resolve():
        return
    atomic_write_bytes(target, earlier.read_bytes())
    log.info("%s: continuing the workbook of an earlier batch, %s, as %s", plan.entry.company, earlier, target)


def _cost_unknown(settings: Settings, report: Any, ingest_usage: dict[str, Any]) -> str:
    """Why a company's spend is unknown: its run's reason, or an ingest's calls with no price."""
    if report.cost_unknown or not report.totals().cost_known:
        return report.cost_unknown or "no price for the model"
    if any(u.unpriced_calls for u in ingest_usage.values()):
        return pricing_for(settings).unknown_reason([chat_model_name(settings)]) or "no price for the model"
    return ""


def _periods(documents: dict[str, Any]) -> str:
    """Reporting periods the store records per document (field `reporting_period` or `period`, when
    the ingest provides one), joined; "" when it records none."""
    found = []
    for d in documents.values():
        value = str(getattr(d, "reporting_period", "") or getattr(d, "period", "") or "").strip()
        if value and value not in found:
            found.append(value)
    return ", ".join(sorted(found))
