"""Work the review page asks of the rest of autofill: answering a Needs-changes row again with the
reviewer's comment as guidance, through the same code path as `autofill run` (answer/row.answer_row
with the run's RowContext, answer/trust checks and tier, workbook/writeback.write_results with the
workbook itself as the base, so the Status says "Re-answered after review" and the Review is cleared for
a new decision); its price before (portfolio/estimate.estimate_rows) and after; and adding an approved
row to the company's answer library (library/harvest + library/store)."""

from __future__ import annotations

import os
from pathlib import Path

from autofill.errors import InputError
from autofill.review_app.session import Refused, ReviewSession, version_of
from autofill.states import ReviewState, parse_review

NEEDS_MODEL = "re-answering needs a model: set OPENAI_API_KEY / OPENAI_BASE_URL (or COHERE_API_KEY) and restart"


def _usd(x: float, priced: bool = True) -> str:
    return f"${x:.4f}" if priced else "unknown (no price for this model)"


def _row(settings, path: Path, key: str):
    from autofill.workbook.layout import read_questions

    layout, rows = read_questions(settings, path)
    row = next((q for q in rows if q.key == key), None)
    if row is None:
        raise Refused(f"no question row {key} in {path.name}")
    return layout, row


def _plan(settings, company: str):
    """The store, clients and resolved plan (autofill/plan.py) a run for `company` would use."""
    from autofill.plan import resolve_plan
    from autofill.providers.factory import make_providers
    from autofill.store.reading import open_for_reading

    store = open_for_reading(settings, company)
    providers = make_providers(settings, store.embedder_name)
    return store, providers, resolve_plan(settings, chat=providers.chat, embedder=store.embedder_name)


def estimate_row(settings, session: ReviewSession, key: str) -> dict:
    """The price of answering the row again, before any call."""
    from autofill.portfolio.estimate import estimate_rows

    if not settings.llm_configured:
        raise Refused(NEEDS_MODEL)
    _layout, row = _row(settings, session.path, key)
    store, _providers, plan = _plan(settings, session.company)
    est = estimate_rows(settings, session.company, [row], plan.model, plan.mode, plan.reranker, store.documents())
    return {"ok": True, "estimate_usd": est.cost_usd if est.priced else None, "priced": est.priced, "calls": est.calls,
            "estimate_text": _usd(est.cost_usd, est.priced), "model": plan.model}


def reanswer_row(settings, session: ReviewSession, key: str, base: str, reviewer: str) -> dict:
    """Answer row `key` again (it must be marked Needs changes); write it into the workbook."""
    from autofill.answer.pages import PageLocator
    from autofill.answer.rerank import make_reranker
    from autofill.answer.row import RowContext, answer_row
    from autofill.answer.trust import make_trust
    from autofill.portfolio.estimate import estimate_rows
    from autofill.providers.cost import UsageMeter
    from autofill.providers.query_cache import with_query_cache
    from autofill.workbook.history import keep_previous
    from autofill.workbook.writeback import write_results

    if not settings.llm_configured:
        raise Refused(NEEDS_MODEL)
    reviewer = " ".join((reviewer or "").split())
    if not reviewer:
        raise Refused("say who you are first (reviewer name)")
    before = session.state(key)
    session._check_base(before, base)
    if parse_review(before["review"]) is not ReviewState.NEEDS_CHANGES:
        raise Refused("mark the row Needs changes (with a comment for the model) before re-answering it")
    from autofill.outputlock import OutputLock

    session.flush()  # the comment and every pending decision into the workbook first (InputError if open)
    with session._file_lock:
        layout, row = _row(settings, session.path, key)
        store, providers, plan = _plan(settings, session.company)
        documents = store.documents()
        chat = providers.chat
        est = estimate_rows(settings, session.company, [row], plan.model, plan.mode, plan.reranker, documents)
        meter = UsageMeter(settings.cost)
        ctx = RowContext(settings=settings, company=session.company, store=store,
                         embedder=with_query_cache(settings, providers.embedder), chat=chat,
                         reranker=make_reranker(settings, plan.reranker, chat, providers.reranker), mode=plan.mode,
                         meter=meter, locator=PageLocator(documents))
        result = make_trust(settings, documents, chat, meter).assess(answer_row(ctx, row))
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
    note = (f"the comment went to the model as guidance; cost {_usd(cost, known)} "
            f"(estimated {_usd(est.cost_usd, est.priced)})")
    # Logged as a decision (already in the cells: writing it again changes nothing but the Review log).
    session.store.add(key, row.question, reviewer, "Re-answer", before, after, note)
    session._wake.set()
    q = session.questions[key]
    failed = result.error or ""
    return {"ok": not failed, "message": f"Re-answered: {note}" if not failed else f"Re-answer failed: {failed}",
            "state": after, "version": version_of(after), "status": q.status, "tier": q.tier,
            "checks": [c.strip() for c in q.checks.split(";") if c.strip()],
            "cost_usd": cost if known else None, "estimate_usd": est.cost_usd if est.priced else None,
            **session.status()}


def add_to_library(settings, session: ReviewSession, key: str) -> dict:
    """Add the approved row `key` to the company's answer library (it must be in the workbook)."""
    from autofill.library.harvest import approved_entries
    from autofill.library.manage import _documents, _lib, _now

    if parse_review(session.state(key)["review"]) is not ReviewState.APPROVED:
        raise Refused("only an approved row can go into the answer library")
    session.flush()
    company = session.company
    if not company:
        raise InputError("the workbook's Run info names no company, so there is no answer library to add to")
    from autofill.library.checking import EvidenceChecker

    entries = [e for e in approved_entries(settings, session.path, _documents(settings, company),
                                           checker=EvidenceChecker(settings, company))
               if _same(e.question, session.questions[key].question)]
    if not entries:
        raise Refused("this row's approved answer is empty or an evidence-only draft; nothing to add")
    with _lib(settings, company, create=True) as lib:
        added = lib.add(entries[:1], _now())
        size = len(lib)
    if added.refused:
        raise Refused(f"not added to the answer library: {added.refused[0][1]}")
    return {"ok": True, "message": f"Added to the answer library of {company} ({size} answers)",
            **added.to_json()}


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).lower() == " ".join(b.split()).lower()
