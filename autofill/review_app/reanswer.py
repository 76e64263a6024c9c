"""Work the review page asks of the rest of autofill: answering a Needs-changes row again with the
reviewer's comment as guidance, opened as `autofill run` opens (answer/opening.open_run) with the plan
the workbook's run recorded (model, endpoint, retrieval, reranker, price; `review --model` / `--llm`
override it) and checked as a run's rows are, then written by workbook/writeback.write_results with the
workbook itself as the base (the Status says "Re-answered after review" and the Review is cleared for a
new decision); its price before (portfolio/estimate.estimate_rows) and after; and adding an approved row
to the company's answer library (library/harvest + library/store)."""

from __future__ import annotations

import os
from pathlib import Path

from autofill.errors import InputError
from autofill.questions import same_question
from autofill.review_app.session import Refused, ReviewSession, version_of
from autofill.states import ReviewState, parse_review
from autofill.workbook.layout import read_questions
from autofill.portfolio.estimate import estimate_rows
from autofill.store.reading import open_for_reading
from autofill.workbook.history import keep_previous
from autofill.workbook.writeback import write_results
from autofill.outputlock import OutputLock
from autofill.companylock import reading
from autofill.library.harvest import approved_entries
from autofill.library.manage import _documents, _lib, _now
from autofill.library.checking import EvidenceChecker

NEEDS_MODEL = "re-answering needs a model: set OPENAI_API_KEY / OPENAI_BASE_URL (or COHERE_API_KEY) and restart"


def _usd(x: float, priced: bool = True) -> str:
    return f"${x:.4f}" if priced else "unknown (no price for this model)"


def _not_a_form(session) -> None:
    """Re-answering and the answer library take question rows; a form's datapoints are not (yet)."""
    if getattr(session.book, "form", False):
        raise Refused("a form's datapoint is answered again by `autofill run` on the form, and forms have no "
                      "answer library yet; not from the review page")


def _row(settings, path: Path, key: str):

    layout, rows = read_questions(settings, path)
    row = next((q for q in rows if q.key == key), None)
    if row is None:
        raise Refused(f"no question row {key} in {path.name}")
    return layout, row, rows


def run_settings(settings, session: ReviewSession):
    """The settings a re-answer of this workbook uses: the plan its run recorded in the Run info sheet
    (model, endpoint, retrieval, reranker, price), except what `autofill review` was told on its command
    line (answer/opening.recorded_settings)."""
    from autofill.answer.opening import recorded_settings

    return recorded_settings(settings, dict(session.book.run_info))


def reanswer_with(settings, session: ReviewSession) -> tuple[bool, str]:
    """(a model to re-answer with, what the page says about it): "gpt-x (openai) at host"."""
    from autofill.plan import resolve_plan

    try:
        planned = run_settings(settings, session)
    except InputError as exc:
        return False, str(exc)
    plan = resolve_plan(planned)
    return plan.has_model, plan.model_label() if plan.has_model else NEEDS_MODEL


def _estimate(settings, company: str, row, plan, documents):

    return estimate_rows(settings, company, [row], plan.model, plan.mode, plan.reranker, documents)


def estimate_row(settings, session: ReviewSession, key: str) -> dict:
    """The price of answering the row again, before any call, and the model it would use."""
    _not_a_form(session)
    from autofill.plan import resolve_plan

    settings = run_settings(settings, session)
    if not settings.llm_configured:
        raise Refused(NEEDS_MODEL)
    _layout, row, _rows = _row(settings, session.path, key)
    store = open_for_reading(settings, session.company)
    plan = resolve_plan(settings, embedder=store.embedder_name)
    est = _estimate(settings, session.company, row, plan, store.documents())
    return {"ok": True, "estimate_usd": est.cost_usd if est.priced else None, "priced": est.priced, "calls": est.calls,
            "estimate_text": _usd(est.cost_usd, est.priced), "model": plan.model, "using": plan.model_label()}


def reanswer_row(settings, session: ReviewSession, key: str, base: str, reviewer: str) -> dict:
    """Answer row `key` again (it must be marked Needs changes) with the run's plan; write it into the
    workbook."""
    _not_a_form(session)
    from autofill.answer.opening import open_run

    settings = run_settings(settings, session)
    if not settings.llm_configured:
        raise Refused(NEEDS_MODEL)
    reviewer = " ".join((reviewer or "").split())
    if not reviewer:
        raise Refused("say who you are first (reviewer name)")
    before = session.state(key)
    session._check_base(before, base)
    if parse_review(before["review"]) is not ReviewState.NEEDS_CHANGES:
        raise Refused("mark the row Needs changes (with a comment for the model) before re-answering it")

    session.flush()  # the comment and every pending decision into the workbook first (InputError if open)

    with session._file_lock:
        layout, row, rows = _row(settings, session.path, key)
        with reading(settings, session.company, "review"):  # no ingest or forget meanwhile (companylock.py)
            opened = open_run(settings, session.company)  # as `autofill run` opens: answer/opening.py
            opened.centre_on(rows)  # the whole questionnaire's, as its run centred it
            opened.announce()
            est = _estimate(settings, session.company, row, opened.plan, opened.documents)
            result = opened.answer(row)
        if not session._history_kept:
            keep_previous(session.path, settings.workbook.history_versions)
            session._history_kept = True
        tmp = session.path.with_name(f".{session.path.stem}.reanswer-{os.getpid()}{session.path.suffix}")
        try:
            with OutputLock(session.path):  # not while an `autofill run` writes this workbook
                write_results(settings, session.path, layout, [result], tmp, dict(session.book.run_info),
                              base=session.path)
                os.replace(tmp, session.path)
        finally:
            tmp.unlink(missing_ok=True)
        session._load()
    after = session.state(key)
    cost = sum(u.cost_usd for u in result.usage.values())
    known = all(u.cost_known for u in result.usage.values())
    note = (f"answered by {opened.plan.model_label()}; the comment went to the model as guidance; cost "
            f"{_usd(cost, known)} (estimated {_usd(est.cost_usd, est.priced)})")
    # Logged as a decision (already in the cells: writing it again changes nothing but the Review log).
    session.store.add(key, row.question, reviewer, "Re-answer", before, after, note)
    session._wake.set()
    q = session.questions[key]
    failed = result.error or ""
    return {"ok": not failed, "message": f"Re-answered: {note}" if not failed else f"Re-answer failed: {failed}",
            "state": after, "version": version_of(after), "status": q.status, "tier": q.tier,
            "checks": [c.strip() for c in q.checks.split(";") if c.strip()],
            "cost_usd": cost if known else None, "estimate_usd": est.cost_usd if est.priced else None,
            "model": opened.plan.model, "using": opened.plan.model_label(), **session.status()}


def add_to_library(settings, session: ReviewSession, key: str) -> dict:
    """Add the approved row `key` to the company's answer library (it must be in the workbook)."""
    _not_a_form(session)

    if parse_review(session.state(key)["review"]) is not ReviewState.APPROVED:
        raise Refused("only an approved row can go into the answer library")
    session.flush()
    company = session.company
    if not company:
        raise InputError("the workbook's Run info names no company, so there is no answer library to add to")

    entries = [e for e in approved_entries(settings, session.path, _documents(settings, company),
                                           checker=EvidenceChecker(settings, company))
               if same_question(e.question, session.questions[key].question)]
    if not entries:
        raise Refused("this row's approved answer is empty or an evidence-only draft; nothing to add")
    with _lib(settings, company, create=True) as lib:
        added = lib.add(entries[:1], _now())
        size = len(lib)
    if added.refused:
        raise Refused(f"not added to the answer library: {added.refused[0][1]}")
    return {"ok": True, "message": f"Added to the answer library of {company} ({size} answers)",
            **added.to_json()}

