"""`autofill ask`: one question answered from a company's evidence store, without a workbook: the
analyst's quick check. The question becomes a synthetic QuestionRow and goes through the same row
logic as a run (answer/row.answer_row): HyDE, retrieval, rerank and answer with a model, or the
evidence-only draft without one, opened as a run opens (answer/opening.open_run: query cache, plan
warnings, prices); the cited pages come back with it, and, as `run` prints them, the
row's trust tier (answer/trust.py: checks against the cited passages) and the model usage and cost
("cost unknown" for a model or endpoint with no price, providers/cost.py)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from autofill.companylock import reading
from autofill.errors import InputError
from autofill.frameworks.coverage import tag_rows
from autofill.language import detect
from autofill.providers.base import Providers
from autofill.checks.tier import failed_text
from autofill.records import QuestionRow, RowResult, StageUsage, stages_json
from autofill.settings import Settings
from autofill.summaries import llm_line

log = logging.getLogger(__name__)


@dataclass
class AskResult:
    company: str
    result: RowResult
    model: str  # "" without a model (evidence-only draft)
    cost_unknown: str = ""  # why the cost is unknown (no price for the model at its endpoint); "" when known
    plan: dict[str, Any] = field(default_factory=dict)  # the resolved plan (autofill/plan.py), for --json

    def usage(self) -> StageUsage:
        total = StageUsage()
        for u in self.result.usage.values():
            total.add(u)
        return total

    def to_json(self) -> dict[str, Any]:
        r, a = self.result, self.result.answer
        t = self.usage()
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
            "tier": r.tier.label if r.tier else None,
            "checks": failed_text(r.checks) or None,
            "model": self.model or None,
            "llm_calls": t.calls,
            "cached_calls": t.cached_calls,
            "prompt_tokens": t.prompt_tokens,
            "completion_tokens": t.completion_tokens,
            "cost_usd": round(t.cost_usd, 6) if t.cost_known else None,
            "cost_unknown_reason": None if t.cost_known else (self.cost_unknown or "no price for the model"),
            "stages": stages_json(r.usage),
            "error": r.error or None,
            "plan": self.plan,
        }

    def describe(self) -> str:
        r, a = self.result, self.result.answer
        llm = llm_line(self.usage(), evidence_only=not self.model, cost_unknown=self.cost_unknown)
        if a is None:
            return f"Failed: {r.error}\n{llm}"
        lines = [a.answer.strip() or "(no answer)", f"Status: {a.status}"]
        if a.citations:
            lines.append("Cited: " + "; ".join(c.label() for c in a.citations))
        if a.reasoning.strip():
            lines.append(f"Reasoning: {a.reasoning.strip()}")
        if r.passages and not a.citations:
            lines.append("Evidence: " + "; ".join(p.page_label for p in r.passages))
        if r.tier is not None:  # as `run` tiers its rows
            why = failed_text(r.checks)
            lines.append(f"Tier: {r.tier.label}" + (f" ({why})" if why else ""))
        lines.append(llm)
        return "\n".join(lines)


def ask(settings: Settings, company: str, question: str, form_of_answer: str = "",
        providers: Providers | None = None) -> AskResult:
    from autofill.answer.opening import open_run

    question = " ".join((question or "").split())
    if not question:
        raise InputError("the question is empty; give it in quotes: autofill ask --company NAME \"question\"")

    with reading(settings, company, "ask"):  # no ingest or forget of the company meanwhile (companylock.py)
        opened = open_run(settings, company, providers=providers)  # as a run opens: answer/opening.py
        language = detect(f"{question} {form_of_answer}", min_markers=2)
        opened.announce(lambda line: log.info("%s", line), language)
        row = QuestionRow(sheet="ask", row=1, question=question, form_of_answer=form_of_answer, language=language)
        tag_rows(settings, [row])  # its datapoints, as a questionnaire's rows get them: the report's index joins in
        result = opened.answer(row)
    return AskResult(opened.store.company, result, opened.plan.model, cost_unknown=opened.cost_unknown(),
                     plan=opened.plan.to_json())
