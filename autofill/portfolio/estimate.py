"""Price a run before paying for it: rows, model calls, prompt and completion tokens, and cost.

Prompt tokens come from the prompts themselves: each row's HyDE, rerank and answer prompts are
rendered from the real templates (the rerank and answer prompts with `candidates` / `final_k`
passages of the configured chunk size, since the real passages are only known after retrieval) and
their characters divided by a characters-per-token ratio. No tokenizer is downloaded.

The ratio, and the completion tokens per call, start from defaults and are refined from the usage
the API reports: after a run, `calibrate` compares the estimated characters of the calls it made
with the prompt tokens the API billed, per model and stage, and remembers the result in
`vectordb/.usage-calibration.json`, so the next estimate absorbs both the tokenizer and the real
passage lengths of this workspace's reports."""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from typing import Any

from autofill.choices import RERANKERS, RETRIEVAL_MODES, RerankerChoice, RetrievalMode
from autofill.providers.base import ChatMessage
from autofill.providers.cost import cost_usd, price_for, pricing_for
from autofill.records import Passage, QuestionRow
from autofill.settings import Settings
from autofill.usage_estimate import (  # noqa: F401 (calibrate, calibration_path: as tests import them)
    CompanyEstimate, StageEstimate, calibrate, calibration_path, stage_figures,
)

log = logging.getLogger(__name__)

STAGES = ("hyde", "multiquery", "rerank", "answer", "verify")
# Completion tokens per call before the API reported any: a HyDE passage of a few sentences, a
# ranking "[4] > [2] > ..." of the candidates (~4 tokens each), a reasoning + JSON answer.
DEFAULT_COMPLETION = {"hyde": 150.0, "multiquery": 60.0, "rerank": 4.0, "answer": 300.0,
                      "verify": 200.0}  # rerank: per candidate
VERIFY_ANSWER_CHARS = 300  # a typical answer, as the verify prompt quotes it
# Rows whose prompts are rendered; a larger questionnaire is priced from an even sample of this many
# (a 50,000-row workbook is priced in a second, not a minute of template rendering).
SAMPLE_ROWS = 200


@dataclass
class PortfolioEstimate:
    companies: list[CompanyEstimate]

    def total(self, name: str) -> Any:
        return sum(getattr(c, name) for c in self.companies)

    @property
    def model_configured(self) -> bool:
        return any(c.model for c in self.companies)

    @property
    def cost_unknown(self) -> str:
        """Why the total cost cannot be known ("" when it can): the first company's reason."""
        return next((c.unpriced_reason or f"no price for {c.model}" for c in self.companies
                     if not c.error and not c.cost_known), "")

    def items(self) -> str:
        """"12 rows", "7 datapoints" (forms), or both: what the companies' questionnaires hold to answer."""
        rows = sum(c.rows for c in self.companies if not c.form)
        points = sum(c.rows for c in self.companies if c.form)
        parts = ([f"{rows} rows"] if rows or not points else []) + ([f"{points} datapoints"] if points else [])
        return " and ".join(parts)

    def to_json(self) -> dict[str, Any]:
        unknown = self.cost_unknown
        return {"companies": [c.to_json() for c in self.companies],
                "rows": self.total("rows"), "calls": self.total("calls"),
                "prompt_tokens": self.total("prompt_tokens"), "completion_tokens": self.total("completion_tokens"),
                "estimated_cost_usd": None if unknown else round(self.total("cost_usd"), 6),
                "cost_unknown_reason": unknown or None,
                "evidence_only": not self.model_configured,
                "unpriced_models": sorted({c.model for c in self.companies if c.model and not c.cost_known})}

    def describe(self) -> str:
        lines = []
        for c in self.companies:
            if c.error:
                lines.append(f"{c.company}: cannot be estimated: {c.error}")
                continue
            state = " (up to date)" if c.up_to_date else (f" ({c.rows_done} done earlier)" if c.rows_done else "")
            n = c.documents_to_ingest
            docs = f", {n} PDF{'' if n == 1 else 's'} to ingest" if n else ""
            calls = (f", {c.calls} calls, {c.prompt_tokens:,} prompt + {c.completion_tokens:,} completion tokens"
                     if c.model else "")
            what = "datapoints of a form" if c.form else "rows"
            lines.append(f"{c.company}: {c.rows} {what}{state}{docs}{calls}, {c.cost_text()}")
        if not self.model_configured:
            lines.append(f"Total: {self.items()}. No model is configured: rows are drafted from evidence "
                         f"only (quotes with pages, no answers); no model calls, nothing to pay. Set OPENAI_API_KEY "
                         f"/ OPENAI_BASE_URL or COHERE_API_KEY for answers.")
            return "\n".join(lines)
        unknown = self.cost_unknown
        calls = (f"{self.total('calls')} calls, {self.total('prompt_tokens'):,} prompt + "
                 f"{self.total('completion_tokens'):,} completion tokens, ")
        lines.append(f"Total: {self.items()}, {calls}"
                     + (f"cost unknown ({unknown})" if unknown else f"${self.total('cost_usd'):.4f} estimated"))
        return "\n".join(lines)


# --------------------------------------------------------------------------- calibration


# --------------------------------------------------------------------------- rendering


def _passages(n: int, chars: int, file_name: str) -> list[Passage]:
    text = ("lorem ipsum " * (chars // 12 + 1))[:chars]
    return [Passage(chunk_id=f"p{i}", file_name=file_name, page_start=i, page_end=i, section="", text=text, rank=i)
            for i in range(1, n + 1)]


def _chars(messages: list[Any]) -> int:
    return sum(len(m.content) for m in messages)


def row_prompt_chars(settings: Settings, company: str, row: QuestionRow, mode: RetrievalMode | str,
                     rerank: RerankerChoice | str,
                     file_name: str = "Annual report.pdf", chunks: int = 0) -> dict[str, tuple[int, int]]:
    """{stage: (calls, prompt characters)} for one row, from the rendered templates. `chunks`: the
    store's chunk count when known (retrieval cannot return more candidates than that). `mode` and
    `rerank`: the plan's (autofill/plan.py), or their names in the tables of autofill/choices.py."""
    from autofill.answer.generate import answer_messages
    from autofill.search.hyde import hyde_messages
    from autofill.answer.rerank import RERANK_PASSAGE_CHARS, passage_views, window_starts, window_step
    from autofill.templating import render

    mode = RETRIEVAL_MODES[mode] if isinstance(mode, str) else mode
    rerank = RERANKERS[rerank] if isinstance(rerank, str) else rerank
    r = settings.retrieval
    chunk = settings.ingest.chunk_chars
    candidates = min(r.candidates, chunks) if chunks else r.candidates
    final_k = min(r.final_k, candidates)
    out: dict[str, tuple[int, int]] = {}
    if mode.uses_hyde:
        out["hyde"] = (1, _chars(hyde_messages(settings, company, row)))
    if r.multi_query:  # three search queries of a dozen words each
        from autofill.search.multiquery import multiquery_messages

        out["multiquery"] = (1, _chars(multiquery_messages(settings, company, row)))
    if rerank.needs_chat and candidates > 1:
        window = max(2, r.rerank_window)
        starts = window_starts(candidates, window, window_step(window))
        total = 0
        system = render(settings.templates_dir, "rerank_system")
        for start in starts:
            views = passage_views(_passages(min(window, candidates - start), chunk, file_name), RERANK_PASSAGE_CHARS)
            prompt = render(settings.templates_dir, "rerank", question=row.question,
                            form_of_answer=row.form_of_answer, explanation=row.explanation,
                            passages=views, count=len(views))
            total += _chars([ChatMessage("system", system), ChatMessage("user", prompt)])
        out["rerank"] = (len(starts), total)
    out["answer"] = (1, _chars(answer_messages(settings, company, row, _passages(final_k, chunk, file_name))))
    if settings.verify.llm:  # one more call per answered row: do the cited passages support the answer?
        views = passage_views(_passages(min(2, final_k), chunk, file_name))
        prompt = render(settings.templates_dir, "verify", question=row.question, answer="x" * VERIFY_ANSWER_CHARS,
                        passages=views)
        out["verify"] = (1, len(prompt) + len(render(settings.templates_dir, "judge_system")))
    return out


def estimate_rows(settings: Settings, company: str, rows: list[QuestionRow], model: str, mode: RetrievalMode | str,
                  rerank: RerankerChoice | str, documents: dict[str, Any] | None = None) -> CompanyEstimate:
    """Price `rows` for `model` ("" = no model: no calls, no cost)."""
    est = CompanyEstimate(company=company, model=model, rows=len(rows))
    if not model or not rows:
        return est
    file_name = next(iter(documents or {}), "Annual report.pdf")
    chunks = sum(d.chunks for d in (documents or {}).values())
    candidates = min(settings.retrieval.candidates, chunks) if chunks else settings.retrieval.candidates
    sample = rows[::-(-len(rows) // SAMPLE_ROWS)]
    scale = len(rows) / len(sample)
    for row in sample:
        for stage, (calls, chars) in row_prompt_chars(settings, company, row, mode, rerank, file_name, chunks).items():
            s = est.stages.setdefault(stage, StageEstimate())
            s.calls += calls
            s.prompt_chars += chars
    for s in est.stages.values():
        s.calls = int(round(s.calls * scale))
        s.prompt_chars = int(round(s.prompt_chars * scale))
    for stage, s in est.stages.items():
        ratio, completion = stage_figures(settings, model, stage)
        if completion is None:
            per = DEFAULT_COMPLETION.get(stage, 200.0)
            completion = per * min(candidates, settings.retrieval.rerank_window) if stage == "rerank" else per
        s.prompt_tokens = int(round(s.prompt_chars / ratio))
        s.completion_tokens = int(round(min(completion, settings.llm.max_tokens) * s.calls))
    pricing = pricing_for(settings)  # a model or endpoint with no price: cost unknown, never $0
    est.priced = price_for(pricing, model) is not None
    est.unpriced_reason = pricing.unknown_reason([model])
    est.cost_usd = cost_usd(pricing, model, est.prompt_tokens, est.completion_tokens)
    return est


def asdict_stages(est: CompanyEstimate) -> dict[str, Any]:
    return {k: asdict(v) for k, v in est.stages.items()}
