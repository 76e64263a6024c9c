"""`autofill run`: answer every question row of a questionnaire from a company's evidence store and
write a filled copy (plus Evidence and Run info sheets) and the HTML review report.

The output is a living document: when it exists already, the run starts from it (workbook/carry.py),
so approved rows, reviewers' comments and hand edits are kept, rejected and needs-changes rows are
answered again with the comment as guidance, and the previous file is copied to history/ before it is
replaced (workbook/history.py). Rows are answered concurrently (`llm.concurrency`); each finished row
is checkpointed at once, so an interrupted run resumes where it stopped; a row that still fails after
the provider's retries is marked failed and keeps what it held before. An endpoint that cannot be used
at all (down, key refused, unknown model) stops the run on its first call with an EndpointError, before
anything is written."""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autofill.answer.checkpoint import Checkpoint, checkpoint_path, question_key, safe_name
from autofill.hashing import file_sha256
from autofill.library.runtime import RunLibrary
from autofill.answer.opening import open_run
from autofill.answer.recheck import recheck
from autofill.checks.reviewed import approved
from autofill.answer.row_pool import answer_concurrently, open_store_with_first_call
from autofill.answer.run_report import build_run_info, progress_line
from autofill.checks.tier import tier_counts
from autofill.errors import InputError
from autofill.fileio import ensure_not_open, ensure_writable_file, missing, remove_leftovers
from autofill.language import questionnaire_languages
from autofill.plan import Plan
from autofill.providers.base import Providers
from autofill.records import QuestionRow, RowResult, RunReport
from autofill.reporting import Reporter, as_reporter
from autofill.settings import Settings
from autofill.states import Outcome, parse_review
from autofill.store.chroma_store import now_iso

log = logging.getLogger(__name__)

# The run's identity (its checkpoint key, batch's key, its Run info rows) is the declared run's.
from autofill.run_identity import PIPELINE_VERSION, TEMPLATES, declare  # noqa: E402,F401
from autofill.outputlock import OutputLock
from autofill.store.chroma_client import collection_name
from autofill.companylock import reading
from autofill.workbook.recovery import recover
from autofill.review.sidecar import reopen_unlogged
from autofill.workbook.reviewer import kept_result, rows_to_answer
from autofill.workbook.history import keep_previous
from autofill.frameworks.model_map import tag_unsure_rows
from autofill.review.report import write_review_report


def output_path(settings: Settings, company: str, questionnaire: Path, out_dir: Path | None) -> Path:
    folder = Path(out_dir) if out_dir else settings.reports_dir
    return folder / f"{questionnaire.stem}_{safe_name(company)}_filled.xlsx"


@dataclass
class _RunPlan:
    """What this run uses: the resolved plan (autofill/plan.py) and the store's documents. It feeds the
    checkpoint key and the Run info sheet."""

    plan: Plan
    documents: dict[str, Any]

    @property
    def chat_model(self) -> str:
        return self.plan.model

    def fingerprint(self, settings: Settings) -> str:
        """The checkpoint key: the declared run (autofill/run_identity.py) with the store's documents."""
        return declare(settings, self.plan).key(self.documents)


def run_questionnaire(settings: Settings, company: str, questionnaire: Path | str, out_dir: Path | None = None,
                      reporter: Reporter | None = None, resume: bool = True, live: bool = False,
                      providers: Providers | None = None, gate: Any = None, output: Path | str | None = None,
                      keep_reviews: bool = True, announce: bool = True) -> RunReport:
    """Answer `questionnaire` for `company`. `output`: the file to write (default
    `<out_dir or reports_out>/<questionnaire>_<company>_filled.xlsx`). `keep_reviews=False` answers
    every row from the questionnaire alone, ignoring an existing output (eval runs). `gate` (portfolio
    runs, autofill/portfolio/budget.RowGate): shared model slots and a cost cap; rows it holds back stay
    pending and the checkpoint is kept. `announce`: say the plan first (model, endpoint, retrieval mode,
    reranker); a portfolio run says it once for all its companies."""
    rep = as_reporter(reporter)
    started_at, t0 = now_iso(), time.monotonic()
    questionnaire = Path(questionnaire)
    if not questionnaire.is_file():
        raise missing("questionnaire", questionnaire)
    from autofill.workbook.layout import read_questions
    from autofill.workbook.writeback import output_file

    layout, rows = read_questions(settings, questionnaire)
    out = output_file(questionnaire, Path(output) if output else output_path(settings, company, questionnaire,
                                                                             out_dir), layout.kind)
    from autofill.workbook.record import check_made_for

    ensure_writable_file(out)
    # One writer per output, before the existing output is read and before any model call; and never
    # another company's workbook (outputs of earlier versions record no company and are continued).
    # And the company's turn (companylock.py): no ingest or forget changes its store while the run reads it.

    with OutputLock(out), reading(settings, company, "run"):
        remove_leftovers(out)  # temporary files of a save that was killed halfway
        _recover(out)  # a damaged output: kept aside, its last good version from history/ continued
        # An output passed as the questionnaire: its rows are not kept either (said first: --out cannot help).
        check_made_for(questionnaire, company, collection_name(company), questionnaire=True,
                       look_in=(settings.workspace,))
        check_made_for(out, company, collection_name(company))
        return _run_locked(settings, company, questionnaire, layout, rows, out, rep, started_at, t0, resume, live,
                           providers, gate, keep_reviews, announce)


def _recover(out: Path) -> None:
    """A damaged output (workbook/recovery.py) is moved aside and its newest history copy that opens
    put in its place, said in one line; the reviewers' decisions that copy lacks wait again in the
    review sidecar, for the next `autofill review` to write."""

    recovery = recover(out)
    if recovery is None:
        return
    reopened = []
    if recovery.restored is not None:

        reopened = reopen_unlogged(out)
    log.warning("%s%s", recovery.message(), f"; {len(reopened)} later review decisions wait in the review sidecar "
                "for `autofill review` to write again" if reopened else "")


def _run_locked(settings: Settings, company: str, questionnaire: Path, layout: Any, rows: list[QuestionRow],
                out: Path, rep: Reporter, started_at: str, t0: float, resume: bool, live: bool,
                providers: Providers | None, gate: Any, keep_reviews: bool, announce: bool) -> RunReport:
    """run_questionnaire's work while it holds the output's lock."""
    from autofill.workbook.carry import Start, choose_base
    from autofill.workbook.record import read_state
    from autofill.workbook.writeback import mark_not_written

    # The existing output, when there is one: reviewer state is read from it and kept (workbook/carry.py).
    start = choose_base(settings, questionnaire, layout, rows, out) if keep_reviews else Start(questionnaire,
                                                                                               layout, rows)
    base, layout, rows = start.base, start.layout, start.rows
    edited = {**read_state(base, layout).edited, **start.edited}
    # resume=False (--fresh): autofill's own earlier answers are answered again; reviewers' work stays.
    opened = open_run(settings, company, providers=providers, fresh=not resume)
    store, providers, chat = opened.store, opened.providers, opened.chat
    # Without a model, rejected and needs-changes rows wait for one (Review and comment kept).
    to_answer, kept = rows_to_answer(rows, edited, again=not resume, can_answer=chat is not None)
    plan = _RunPlan(opened.plan, opened.documents)
    # Before any model call: a folder we cannot write to is bad input, not a failure after paying for rows.
    # Likewise an output open in Excel or LibreOffice, or marked read-only (fileio says which, naming it).
    ensure_writable_file(out)
    if live:
        # --live drives the workbook open in Excel (its lock is expected); LibreOffice it cannot drive.
        ensure_not_open(questionnaire, allow=("Excel",))
    language = questionnaire_languages(rows)  # each of its rows' languages (several in a mixed sheet)
    # After the input checks: bad input stays one line. The first line names the languages too.
    opened.announce(rep.message if announce else None, language)
    if chat is None:
        rep.message("No LLM configured: drafting evidence-only rows (quotes with pages, no answers). "
                    "Set OPENAI_API_KEY / OPENAI_BASE_URL or COHERE_API_KEY for answers.")
    if base != questionnaire:
        rep.message(f"Continuing {out.name}: {len(kept)} rows kept as they are, {len(to_answer)} to answer.")

    checkpoint = Checkpoint(checkpoint_path(settings.reports_dir, company, file_sha256(questionnaire),
                                            plan.fingerprint(settings)), passages=store.get_passages)
    if not resume:
        checkpoint.reset()
    done = checkpoint.load()
    results: dict[str, RowResult] = {}
    for row in to_answer:
        previous = done.get(question_key(row))
        if previous is not None and _same_review(previous.question, row):
            previous.question = row  # today's row (same text): picks up e.g. a reviewer's new status cell
            results[row.key] = previous
    resumed = list(results)
    if results:
        rep.message(f"Resuming: {len(results)} of {len(to_answer)} rows were finished by an earlier run.")
    pending = [row for row in to_answer if row.key not in results]
    library = _library(settings, company, providers, plan, base, layout, rows, out)  # rows are the base's
    if library is not None:
        library.match(to_answer)
        reused = library.reuse(pending)
        results.update((r.question.key, r) for r in reused)
        pending = [row for row in pending if row.key not in results]
    else:
        reused = []

    opened.centre_on(rows)  # every row of the questionnaire, answered today or not (search/centring.py)
    meter, trust, ctx = opened.meter, opened.trust, opened.row_context()
    if settings.run.map_with_model and chat is not None:  # unsure rows' datapoints with the model's help

        asked = tag_unsure_rows(settings, chat, rows, meter)
        if asked:
            rep.message(f"Framework datapoints: {asked} rows the rules left unsure were mapped with the model's help.")
    for result in reused:  # checked against their cited pages in today's store before they can be Ready
        mark_not_written(recheck(trust, store, result))
    open_store_with_first_call(chat, store)
    live_sink = _LiveSink(questionnaire, layout, settings) if live else None
    if live_sink is not None:
        for result in results.values():
            live_sink(result)
    bar = rep.bar("Answering", len(to_answer), "rows")
    bar.advance(len(results))

    def finished(result: RowResult) -> None:
        # The one place a finished row passes through (already checked and tiered by trust.assess in its
        # worker): checkpointed, shown live and counted.
        results[result.question.key] = result
        checkpoint.append(result)
        if live_sink is not None:
            live_sink(result)
        bar.advance()
        bar.note(f"{result.question.key} {result.outcome.value}")
        log.debug("%s", progress_line(len(results), len(to_answer), result))

    stopped = None
    try:
        if pending:
            # Load the query embedder now, not inside the first rows: their timings stay honest and
            # a broken embedder fails the run once instead of every row.
            providers.embedder.embed_query(pending[0].question)
        stopped = answer_concurrently(ctx, pending, settings.llm.concurrency, finished,
                                       check=lambda r: mark_not_written(opened.check(r)), gate=gate)
    finally:
        bar.close()
    for key in resumed:
        mark_not_written(trust.reassess(results[key]))

    ordered = [results[row.key] for row in to_answer if row.key in results]
    kept_results = [kept_result(row, edited.get(row.key, ())) for row in kept]
    for result in kept_results:
        if result.outcome in (Outcome.EDITED, Outcome.APPROVED):  # re-checked on the person's text and cited pages
            recheck(trust, store, result, sources=result.question.existing_sources)
            if result.outcome is Outcome.APPROVED:
                approved(result)  # Tier Approved, Checks naming every failure (checks/reviewed.py)
    if live_sink is not None:
        for result in kept_results:
            if result.note:
                live_sink(result)
    if library is not None:
        for result in ordered:
            library.annotate(result, answered_by_model=bool(plan.chat_model))
    for warning in layout.all_warnings:
        log.warning("%s", warning)
    counts = Counter(r.outcome for r in ordered + kept_results)
    edited_count = counts[Outcome.EDITED]
    uncited = sum(1 for r in ordered if r.uncited)
    run_info = build_run_info(settings, company, plan.plan, meter.snapshot(), ordered + kept_results, started_at,
                              len(to_answer) - len(pending), len(kept), edited=edited_count,
                              documents=plan.documents, cost_unknown=meter.unknown_reason())
    if library is not None:
        run_info.update(library.run_info())
    from autofill.workbook.writeback import write_results

    history = keep_previous(out, settings.workbook.history_versions)
    run_info["evidence store"] = store.collection
    run_info["questionnaire"] = questionnaire.name
    identity = {"company": company, "store": store.collection, "questionnaire": questionnaire.name,
                "questionnaire_sha": file_sha256(questionnaire)}
    written = write_results(settings, questionnaire, layout, ordered + kept_results, out, run_info, base=base,
                            carried=start.carried, identity=identity)
    left = len(to_answer) - len(ordered)  # held back by the gate (cost cap): pending
    if not counts[Outcome.FAILED] and not left:
        checkpoint.remove()  # complete: nothing left to resume
    # The workbook holds the evidence now: the passages of 5,000 rows need not stay in memory while the
    # review report reads it back (measured in benchmarks/run_rows.py).
    for result in ordered:
        result.passages = []
    import gc

    gc.collect()
    report_html = _review_report(settings, Path(written), company)
    problems = [(r.outcome.value, r.question.key, r.error if r.failed else "the model's reply could not be read")
                for r in ordered if r.outcome in (Outcome.FAILED, Outcome.UNPARSED)]
    report = RunReport(output=Path(written), rows=len(rows), answered=counts[Outcome.ANSWERED],
                       failed=counts[Outcome.FAILED], skipped=len(kept), usage=meter.snapshot(),
                       seconds=time.monotonic() - t0,  # the whole run: workbook and report included
                       report_html=report_html, evidence_only=not plan.chat_model,
                       problems=problems, tiers=tier_counts(r.tier for r in ordered + kept_results), drafted=counts[Outcome.DRAFTED],
                       unparsed=counts[Outcome.UNPARSED], reused=counts[Outcome.REUSED], uncited=uncited,
                       edited=edited_count, history=history, pending=left, plan=plan.plan.to_json(),
                       approved=counts[Outcome.APPROVED], waiting=counts[Outcome.WAITING],
                       not_written=counts[Outcome.NOT_WRITTEN], cost_unknown=meter.unknown_reason())
    if stopped is not None:  # the endpoint went away: what finished is written, the rest stays pending
        raise stopped.progress(len(ordered), len(to_answer), written)
    # The summary is the CLI's to print (autofill.summaries.run_summary), on the stream of every command's.
    return report


def _same_review(before: QuestionRow, now: QuestionRow) -> bool:
    """A checkpointed answer still stands for `now` unless a reviewer has since asked for another one."""
    return parse_review(before.review) == parse_review(now.review) and \
        before.reviewer_comment.strip() == now.reviewer_comment.strip()


def _library(settings: Settings, company: str, providers: Providers, plan: _RunPlan, base: Path,
             layout: Any, rows: list[QuestionRow], out: Path) -> RunLibrary | None:
    """The answer library for this run, having learned the approved rows of the workbook the run starts
    from (`layout` and `rows` are its own) and of an existing output of it (what reviewers approved there
    since the last run)."""
    library = RunLibrary.open(settings, company, providers.embedder, plan.documents)
    if library is None:
        return None
    library.learn(base, layout, rows)
    if out.is_file() and out.resolve() != base.resolve():
        try:
            library.learn(out)
        except InputError as exc:
            log.warning("approved rows of %s not added to the answer library: %s", out.name, exc)
    return library


def _review_report(settings: Settings, output: Path, company: str) -> Path | None:
    """The HTML review report next to the output. A failure here must not fail the run: the filled
    workbook is already written, and `autofill report` can make the HTML later."""
    try:

        path = write_review_report(settings, output, company=company)
    except Exception as exc:  # noqa: BLE001
        log.warning("the review report could not be written (%s: %s); try `autofill report %s`",
                    type(exc).__name__, exc, output)
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
            log.warning("live Excel update stopped (%s: %s); the filled copy is still written", type(exc).__name__, exc)
            self._writer = None
