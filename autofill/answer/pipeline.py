"""`autofill run`: answer every question row of a questionnaire from a company's evidence store and
write a filled copy (plus Evidence and Run info sheets) and the HTML review report.

Rows are answered concurrently (`llm.concurrency`); each finished row is checkpointed at once, so an
interrupted run resumes where it stopped; a row that still fails after the provider's retries is
marked failed with its reason and the run goes on."""

from __future__ import annotations

import concurrent.futures as cf
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import autofill
from autofill.answer.checkpoint import Checkpoint, checkpoint_path, fingerprint, question_key, safe_name
from autofill.hashing import file_sha256
from autofill.library.runtime import RunLibrary
from autofill.answer.pages import PageLocator
from autofill.answer.retrieval import resolve_mode
from autofill.answer.row import RowContext, answer_row
from autofill.answer.trust import make_trust
from autofill.checks.tier import tier_counts
from autofill.errors import InputError
from autofill.fileio import ensure_not_open, ensure_writable_file, missing
from autofill.providers.base import Providers
from autofill.providers.cost import UsageMeter
from autofill.records import QuestionRow, RowResult, RunReport, StageUsage
from autofill.settings import Settings
from autofill.templating import template_source
from autofill.store.chroma_store import now_iso

# Bump when answering logic changes in a way that makes old checkpoints wrong.
PIPELINE_VERSION = 1
STAGES = ("hyde", "rerank", "answer", "verify")
TEMPLATES = ("hyde", "hyde_system", "rerank", "rerank_system", "answer", "answer_system")



def _say(progress: bool, message: str) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


def _warn(message: str) -> None:
    print(f"autofill: warning: {message}", file=sys.stderr, flush=True)


def output_path(settings: Settings, company: str, questionnaire: Path, out_dir: Path | None) -> Path:
    folder = Path(out_dir) if out_dir else settings.reports_dir
    return folder / f"{questionnaire.stem}_{safe_name(company)}_filled.xlsx"


@dataclass
class _Plan:
    """What this run uses, resolved once: it feeds the checkpoint key and the Run info sheet."""

    mode: str
    rerank: str
    chat_model: str
    embedder: str
    documents: dict[str, Any]

    def fingerprint(self, settings: Settings) -> str:
        r, llm = settings.retrieval, settings.llm
        return fingerprint({
            "version": PIPELINE_VERSION, "mode": self.mode, "rerank": self.rerank, "chat_model": self.chat_model,
            "llm_provider": settings.llm_provider if self.chat_model else "none",
            "temperature": llm.temperature, "max_tokens": llm.max_tokens, "embedder": self.embedder,
            "retrieval": [r.candidates, r.final_k, r.rrf_k, r.context_order, r.rerank_window, r.rerank_step,
                          r.cohere_rerank_model if self.rerank == "cohere" else "", r.max_per_page],
            "templates": {t: template_source(settings.templates_dir, t) for t in TEMPLATES} if self.chat_model else {},
            # Chunking is part of a document's identity: a re-chunked store retrieves other passages.
            "documents": sorted((d.file_name, d.sha256, d.chunking) for d in self.documents.values()),
        })


def _providers(settings: Settings, store: Any, providers: Providers | None) -> Providers:
    """The clients for this run. The query embedder is always the store's own: vectors from another
    embedder would be compared with the store's in a different space."""
    if providers is not None:
        store.check_embedder(providers.embedder.name)
        return providers
    from autofill.providers.factory import make_providers

    return make_providers(settings, store.embedder_name)


def run_questionnaire(settings: Settings, company: str, questionnaire: Path | str, out_dir: Path | None = None,
                      progress: bool = False, resume: bool = True, live: bool = False,
                      providers: Providers | None = None, gate: Any = None, output: Path | None = None) -> RunReport:
    """`gate` (portfolio runs, autofill/portfolio/budget.RowGate): shared model slots and a cost cap;
    rows it holds back stay pending and the checkpoint is kept. `output`: the filled copy's path."""
    started_at, t0 = now_iso(), time.monotonic()
    questionnaire = Path(questionnaire)
    if not questionnaire.is_file():
        raise missing("questionnaire", questionnaire)
    from autofill.store.chroma_store import open_store
    from autofill.workbook.layout import read_questions
    from autofill.workbook.reviewer import rows_to_answer
    from autofill.workbook.writeback import write_results

    layout, rows = read_questions(settings, questionnaire)
    to_answer, kept = rows_to_answer(rows)
    store = open_store(settings, company)
    providers = _providers(settings, store, providers)
    chat = providers.chat
    rerank_method = settings.reranker
    if rerank_method == "cohere" and providers.reranker is None:
        raise InputError("reranker 'cohere' needs a Cohere API key (COHERE_API_KEY)")
    plan = _Plan(mode=resolve_mode(settings, chat is not None),
                 rerank=rerank_method if (rerank_method != "llm" or chat is not None) else "none",
                 chat_model=getattr(chat, "model", "") if chat is not None else "",
                 embedder=store.embedder_name, documents=store.documents())
    if not plan.documents:
        raise InputError(f"the evidence store for {company!r} has no documents; run `autofill ingest` first")
    for asked, used, what in ((settings.retrieval.mode, plan.mode, "retrieval"),
                              (settings.retrieval.reranker, plan.rerank, "reranker")):
        if chat is None and asked != "auto" and asked != used:
            # Asked for explicitly (option or settings file): say so, even under --json, rather than
            # let the Run info sheet be the only place that shows HyDE or the LLM rerank did not run.
            _warn(f"{what} {asked!r} needs an LLM and none is configured; using {used!r}")
    # Before any model call: a folder we cannot write to is bad input, not a failure after paying for rows.
    # Likewise an output open in Excel or LibreOffice, or marked read-only (fileio says which, naming it).
    out = Path(output) if output else output_path(settings, company, questionnaire, out_dir)
    ensure_writable_file(out)
    if live:
        # --live drives the workbook open in Excel (its lock is expected); LibreOffice it cannot drive.
        ensure_not_open(questionnaire, allow=("Excel",))
    if chat is None:
        _say(progress, "No LLM configured: drafting evidence-only rows (quotes with pages, no answers). "
                       "Set OPENAI_API_KEY / OPENAI_BASE_URL or COHERE_API_KEY for answers.")

    checkpoint = Checkpoint(checkpoint_path(settings.reports_dir, company, file_sha256(questionnaire),
                                            plan.fingerprint(settings)), passages=store.get_passages)
    if not resume:
        checkpoint.reset()
    done = checkpoint.load()
    results: dict[str, RowResult] = {}
    for row in to_answer:
        previous = done.get(question_key(row))
        if previous is not None:
            previous.question = row  # today's row (same text): picks up e.g. a reviewer's new status cell
            results[row.key] = previous
    resumed = list(results)
    if results:
        _say(progress, f"Resuming: {len(results)} of {len(to_answer)} rows were finished by an earlier run.")
    pending = [row for row in to_answer if row.key not in results]
    library = _library(settings, company, providers, plan, questionnaire, layout, rows, out)
    if library is not None:
        library.match(to_answer)
        results.update((r.question.key, r) for r in library.reuse(pending))
        pending = [row for row in pending if row.key not in results]

    meter = UsageMeter(settings.cost)
    ctx = RowContext(settings=settings, company=company, store=store, embedder=providers.embedder, chat=chat,
                     reranker=providers.reranker, mode=plan.mode, rerank_method=plan.rerank, meter=meter,
                     locator=PageLocator(plan.documents))
    trust = make_trust(settings, plan.documents, chat, meter)  # checks and tier of every finished row
    live_sink = _LiveSink(questionnaire, layout, settings) if live else None
    if live_sink is not None:
        for result in results.values():
            live_sink(result)
    total = len(to_answer)

    def finished(result: RowResult) -> None:
        results[result.question.key] = result
        checkpoint.append(result)
        if live_sink is not None:
            live_sink(result)
        _say(progress, _progress_line(len(results), total, result))

    if pending:
        # Load the query embedder now, not inside the first rows: their timings stay honest and
        # a broken embedder fails the run once instead of every row.
        providers.embedder.embed_query(pending[0].question)
    _answer_concurrently(ctx, pending, settings.llm.concurrency, finished, check=trust.assess, gate=gate)
    for key in resumed:
        trust.reassess(results[key])

    ordered = [results[row.key] for row in to_answer if row.key in results]
    if library is not None:
        for result in ordered:
            library.annotate(result, answered_by_model=bool(plan.chat_model))
    failed = [r for r in ordered if r.failed]
    finished_at = time.monotonic()
    for warning in layout.all_warnings:
        _warn(warning)
    run_info = build_run_info(settings, company, plan, meter.snapshot(), ordered, started_at,
                              len(to_answer) - len(pending), len(kept))
    if library is not None:
        run_info.update(library.run_info())
    written = write_results(settings, questionnaire, layout, ordered, out, run_info)
    left = len(to_answer) - len(ordered)  # held back by the gate (cost cap): pending
    if not failed and not left:
        checkpoint.remove()  # complete: nothing left to resume
    report_html = _review_report(settings, Path(written), company, progress)
    report = RunReport(output=Path(written), rows=len(rows), answered=len(ordered) - len(failed), failed=len(failed),
                       skipped=len(kept), usage=meter.snapshot(), seconds=finished_at - t0, report_html=report_html,
                       evidence_only=not plan.chat_model, tiers=tier_counts(r.tier for r in ordered),
                       reused=library.reused if library is not None else 0,
                       problems=[("failed", r.question.key, r.error) for r in failed], pending=left)
    # The summary is the CLI's to print (autofill.summaries.run_summary), on the stream of every command's.
    return report


def _library(settings: Settings, company: str, providers: Providers, plan: _Plan, questionnaire: Path,
             layout: Any, rows: list[QuestionRow], out: Path) -> RunLibrary | None:
    """The answer library for this run, having learned the approved rows of the workbook passed in and
    of an existing output of it (what reviewers approved there since the last run)."""
    library = RunLibrary.open(settings, company, providers.embedder, plan.documents)
    if library is None:
        return None
    library.learn(questionnaire, layout, rows)
    if out.is_file() and out.resolve() != questionnaire.resolve():
        try:
            library.learn(out)
        except InputError as exc:
            _warn(f"approved rows of {out.name} not added to the answer library: {exc}")
    return library


def _answer_concurrently(ctx: RowContext, rows: list[QuestionRow], concurrency: int,
                         finished: Callable[[RowResult], None],
                         check: Callable[[RowResult], RowResult] = lambda r: r, gate: Any = None) -> None:
    """Answer rows in a thread pool, calling `finished` from this thread as each completes (so the
    checkpoint has a single writer). Ctrl-C or a broken template stops the pool: queued rows are
    cancelled and in-flight ones abandoned; everything finished so far is already checkpointed."""
    if not rows:
        return
    pool = cf.ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="autofill-row")
    try:
        work = gate.wrap(answer_row) if gate is not None else answer_row

        def one(row: QuestionRow) -> RowResult | None:
            result = work(ctx, row)
            return None if result is None else check(result)

        futures = [pool.submit(one, row) for row in rows]
        for future in cf.as_completed(futures):
            result = future.result()
            if result is not None:  # None: the gate did not start the row (cost cap); it stays pending
                finished(result)
    except BaseException:
        # Queued rows are cancelled; rows in flight stop before their next model call (each waits
        # at most for the call it is in), so nothing keeps calling the API after the run has ended.
        ctx.stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _progress_line(n: int, total: int, r: RowResult) -> str:
    calls = sum(u.calls for u in r.usage.values())
    cached = sum(u.cached_calls for u in r.usage.values())
    state = f"FAILED: {r.error}" if r.failed else r.answer.status
    q = r.question.question
    q = q if len(q) <= 60 else q[:57] + "..."
    cache_note = f", {cached} cached" if cached else ""
    return f"[{n}/{total}] {r.question.key} {state} ({calls} calls{cache_note}, {r.seconds:.1f} s) {q}"


def build_run_info(settings: Settings, company: str, plan: _Plan, usage: dict[str, StageUsage],
                   results: list[RowResult], started_at: str, resumed: int, skipped: int) -> dict[str, Any]:
    """Key/value pairs for the Run info sheet: what produced these answers and what it cost. Secrets
    never appear (models and URLs only, no keys)."""
    import json

    r = settings.retrieval
    info: dict[str, Any] = {
        "company": company,
        "autofill version": autofill.__version__,
        "started": started_at,
        "finished": now_iso(),
        "llm provider": settings.llm_provider if plan.chat_model else "none (evidence-only drafts)",
        "llm model": plan.chat_model or "none",
        "llm base url": settings.llm.base_url if plan.chat_model else "",
        "temperature": settings.llm.temperature,
        "embedder": plan.embedder,
        "retrieval mode": plan.mode,
        "reranker": plan.rerank + (f" ({r.cohere_rerank_model})" if plan.rerank == "cohere" else ""),
        "candidates": r.candidates,
        "final k": r.final_k,
        "rrf k": r.rrf_k,
        "context order": r.context_order,
        "rerank window / step": f"{r.rerank_window} / {r.rerank_step}",
        "max passages per page": r.max_per_page or (1 if plan.rerank == "none" else "no limit"),
        "rows answered": sum(1 for x in results if not x.failed),
        "rows failed": sum(1 for x in results if x.failed),
        "rows skipped (kept as they were)": skipped,
        "rows resumed from a checkpoint": resumed,
        "reporting year": settings.run.reporting_year or "not given",
        "model verification": (settings.verify.judge_model or plan.chat_model) if settings.verify.llm and plan.chat_model
        else "off",
    }
    for key, n in tier_counts(x.tier for x in results).items():
        info[f"tier {key.replace('_', ' ')}"] = n
    total = StageUsage()
    for stage in STAGES:
        u = usage.get(stage, StageUsage())
        total.add(u)
        info[f"{stage} calls"] = u.calls
        info[f"{stage} cached calls"] = u.cached_calls
        info[f"{stage} prompt tokens"] = u.prompt_tokens
        info[f"{stage} completion tokens"] = u.completion_tokens
        info[f"{stage} cost usd"] = round(u.cost_usd, 6)
    info["total llm calls"] = total.calls
    info["total prompt tokens"] = total.prompt_tokens
    info["total completion tokens"] = total.completion_tokens
    info["total cost usd"] = round(total.cost_usd, 6)
    info["documents"] = json.dumps({d.file_name: d.source_path for d in plan.documents.values()}, ensure_ascii=False)
    return info


def _review_report(settings: Settings, output: Path, company: str, progress: bool) -> Path | None:
    """The HTML review report next to the output. A failure here must not fail the run: the filled
    workbook is already written, and `autofill report` can make the HTML later."""
    try:
        from autofill.review.report import write_review_report

        path = write_review_report(settings, output, company=company)
    except Exception as exc:  # noqa: BLE001
        _warn(f"the review report could not be written ({type(exc).__name__}: {exc}); "
              f"try `autofill report {output}`")
        return None
    return Path(path)


class _LiveSink:
    """`--live`: rows go into the workbook open in Excel as they finish. Opening fails the run early
    (InputError: no Excel on Linux, no xlwings); a write failing later (Excel closed) only stops the
    live view with a warning, since the filled copy is still written."""

    def __init__(self, questionnaire: Path, layout: Any, settings: Settings) -> None:
        from autofill.workbook.live import open_live

        self._writer: Any = open_live(questionnaire, layout=layout, settings=settings)

    def __call__(self, result: RowResult) -> None:
        if self._writer is None:
            return
        try:
            self._writer(result)
        except Exception as exc:  # noqa: BLE001 - Excel/COM errors come in many kinds
            _warn(f"live Excel update stopped ({type(exc).__name__}: {exc}); the filled copy is still written")
            self._writer = None
