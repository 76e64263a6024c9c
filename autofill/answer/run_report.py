"""What a run reports in the workbook: the Run info sheet's key/value pairs, and the one-line progress
note of a finished row. Pure functions of the run's records, kept apart from the run loop (pipeline.py);
the summary printed after a run is the CLI's (autofill/summaries.py run_summary)."""

from __future__ import annotations

import json
from typing import Any

import autofill
from autofill.checks.tier import tier_counts
from autofill.plan import Plan
from autofill.records import LLM_STAGES, RowResult, StageUsage
from autofill.run_identity import PRICE_ROW, UNKNOWN_PRICE, declare  # noqa: F401  (the declared run writes them)
from autofill.settings import Settings
from autofill.states import Outcome
from autofill.store.chroma_store import now_iso

STAGES = LLM_STAGES


def progress_line(n: int, total: int, r: RowResult) -> str:
    calls = sum(u.calls for u in r.usage.values())
    cached = sum(u.cached_calls for u in r.usage.values())
    state = f"FAILED: {r.error}" if r.failed else (r.answer.status if r.answer else r.outcome.value)
    q = r.question.question
    q = q if len(q) <= 60 else q[:57] + "..."
    cache_note = f", {cached} cached" if cached else ""
    return f"[{n}/{total}] {r.question.key} {state} ({calls} calls{cache_note}, {r.seconds:.1f} s) {q}"


def build_run_info(settings: Settings, company: str, plan: Plan, usage: dict[str, StageUsage],
                   results: list[RowResult], started_at: str, resumed: int, skipped: int,
                   edited: int = 0, documents: dict[str, Any] | None = None,
                   cost_unknown: str = "") -> dict[str, Any]:
    """Key/value pairs for the Run info sheet: what produced these answers and what it cost. Secrets
    never appear (models and URLs only, no keys). `plan`: the run's resolved plan (autofill/plan.py).
    A stage with calls that have no price shows its cost as "unknown"; `cost_unknown` says why."""
    info: dict[str, Any] = {
        "company": company,
        "autofill version": autofill.__version__,
        "started": started_at,
        "finished": now_iso(),
        # What produced these answers: the declared run's rows (autofill/run_identity.py), read back by
        # its recorded_settings for a re-answer in `autofill review`.
        **declare(settings, plan).run_info(),
        "rows answered": sum(1 for x in results if x.outcome is Outcome.ANSWERED),
        "rows drafted (evidence only)": sum(1 for x in results if x.outcome is Outcome.DRAFTED),
        "rows unparsed": sum(1 for x in results if x.outcome is Outcome.UNPARSED),
        "rows failed": sum(1 for x in results if x.failed),
        "rows answered, answer not written": sum(1 for x in results if x.outcome is Outcome.NOT_WRITTEN),
        "rows reused from the library": sum(1 for x in results if x.outcome is Outcome.REUSED),
        "rows skipped (kept as they were)": skipped,
        "rows approved in review (kept)": sum(1 for x in results if x.outcome is Outcome.APPROVED),
        "rows edited by hand (kept)": edited,
        "rows waiting for a model (kept)": sum(1 for x in results if x.outcome is Outcome.WAITING),
        "answers without a valid citation": sum(1 for x in results if x.uncited),
        "rows resumed from a checkpoint": resumed,
        "reporting year": settings.run.reporting_year or "not given",
        "model verification": (settings.verify.judge_model or plan.model) if settings.verify.llm and plan.has_model
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
        info[f"{stage} cost usd"] = round(u.cost_usd, 6) if u.cost_known else "unknown"
    info["total llm calls"] = total.calls
    info["total prompt tokens"] = total.prompt_tokens
    info["total completion tokens"] = total.completion_tokens
    info["total cost usd"] = round(total.cost_usd, 6) if total.cost_known else "unknown"
    if not total.cost_known:
        info["cost unknown because"] = cost_unknown or "no price for the model"
    info["documents"] = json.dumps({d.file_name: d.source_path for d in (documents or {}).values()}, ensure_ascii=False)
    return info
