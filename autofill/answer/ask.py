"""`autofill ask`: one question answered from a company's evidence store, without a workbook: the
analyst's quick check. The question becomes a synthetic QuestionRow and goes through the same row
logic as a run (answer/row.answer_row): HyDE, retrieval, rerank and answer with a model, or the
evidence-only draft without one; the cited pages come back with it."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from autofill.errors import InputError
from autofill.providers.base import Providers
from autofill.records import QuestionRow, RowResult
from autofill.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class AskResult:
    company: str
    result: RowResult
    model: str  # "" without a model (evidence-only draft)
    plan: dict[str, Any] = field(default_factory=dict)  # the resolved plan (autofill/plan.py), for --json

    def to_json(self) -> dict[str, Any]:
        r, a = self.result, self.result.answer
        calls = sum(u.calls for u in r.usage.values())
        return {
            "company": self.company,
            "question": r.question.question,
            "answer": a.answer if a else None,
            "status": a.status if a else f"Failed: {r.error}",
            "evidence_only": not self.model,
            "reasoning": a.reasoning if a else "",
            "confidence": a.confidence if a else "",
            "citations": [{"file": c.file_name, "page": c.page} for c in (a.citations if a else [])],
            "passages": [{"file": p.file_name, "page": p.page_start, "text": p.text} for p in r.passages],
            "llm_calls": calls,
            "cost_usd": round(sum(u.cost_usd for u in r.usage.values()), 6),
            "error": r.error or None,
            "plan": self.plan,
        }

    def describe(self) -> str:
        r, a = self.result, self.result.answer
        if a is None:
            return f"Failed: {r.error}"
        lines = [a.answer.strip() or "(no answer)", f"Status: {a.status}"]
        if a.citations:
            lines.append("Cited: " + "; ".join(c.label() for c in a.citations))
        if a.reasoning.strip():
            lines.append(f"Reasoning: {a.reasoning.strip()}")
        if r.passages and not a.citations:
            lines.append("Evidence: " + "; ".join(p.page_label for p in r.passages))
        return "\n".join(lines)


def ask(settings: Settings, company: str, question: str, form_of_answer: str = "",
        providers: Providers | None = None) -> AskResult:
    from autofill.answer.pages import PageLocator
    from autofill.answer.rerank import make_reranker
    from autofill.answer.row import RowContext, answer_row
    from autofill.plan import resolve_plan
    from autofill.providers.cost import UsageMeter
    from autofill.store.reading import open_for_reading

    question = " ".join((question or "").split())
    if not question:
        raise InputError("the question is empty; give it in quotes: autofill ask --company NAME \"question\"")
    store = open_for_reading(settings, company)
    documents = store.documents()
    if not documents:
        raise InputError(f"the evidence store for {company!r} has no documents; run `autofill ingest` first")
    if providers is None:
        from autofill.providers.factory import make_providers

        providers = make_providers(settings, store.embedder_name)
    else:
        store.check_embedder(providers.embedder.name)
    chat = providers.chat
    plan = resolve_plan(settings, chat=chat, embedder=store.embedder_name)
    reranker = make_reranker(settings, plan.reranker, chat, providers.reranker)
    log.info("%s", plan.first_line())
    ctx = RowContext(settings=settings, company=store.company, store=store, embedder=providers.embedder, chat=chat,
                     reranker=reranker, mode=plan.mode, meter=UsageMeter(settings.cost), locator=PageLocator(documents))
    row = QuestionRow(sheet="ask", row=1, question=question, form_of_answer=form_of_answer)
    return AskResult(store.company, answer_row(ctx, row), plan.model, plan=plan.to_json())
