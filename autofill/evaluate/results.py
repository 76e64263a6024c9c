"""Scoring one filled workbook against a gold key, and the records the eval command reports.

`score_output` reads an autofill output (question rows, Evidence sheet, Run info), pairs its rows with
the gold items and computes every metric of `metrics.py` (and the judge's, when one is given) per
question. `ConfigEval` holds one configuration's per-question scores; `EvalResult` several, with their
pairwise comparisons.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autofill.evaluate import metrics as m
from autofill.evaluate.gold import GoldKey, normalise_question
from autofill.evaluate.stats import PairedTest, Summary, paired_test, summarise
from autofill.records import StageUsage
from autofill.review.reader import read_filled_workbook

RETRIEVAL_METRICS = ["hit_at_k", "recall_at_k", "precision_at_k", "mrr", "ndcg_at_k",
                     "passage_precision", "passage_recall", "passage_f1"]
ANSWER_METRICS = ["yesno_accuracy", "number_accuracy", "value_accuracy"]
JUDGE_METRICS = ["correctness", "faithfulness", "answer_relevancy", "context_relevancy"]
ALL_METRICS = RETRIEVAL_METRICS + ANSWER_METRICS + JUDGE_METRICS
PROPORTIONS = {"hit_at_k", "yesno_accuracy", "number_accuracy", "value_accuracy"}  # 0/1 per question: Wilson intervals


@dataclass
class QuestionEval:
    """One question's scores; a metric is None when it does not apply (no gold pages, not a yes/no
    question, no judge). Per question, hit_at_k / yesno_accuracy / number_accuracy are 0 or 1."""

    sheet: str
    row: int
    number: str
    question: str
    answer_type: str
    answer: str = ""
    status: str = ""
    verdict: str = ""  # the answer's leading verdict for yes/no questions ("yes", "no / not disclosed"), "" if none
    gold_pages: int = 0
    gold_evidence: int = 0
    retrieved: int = 0
    hit_at_k: float | None = None
    recall_at_k: float | None = None
    precision_at_k: float | None = None
    mrr: float | None = None
    ndcg_at_k: float | None = None
    passage_precision: float | None = None
    passage_recall: float | None = None
    passage_f1: float | None = None
    yesno_accuracy: float | None = None
    number_accuracy: float | None = None
    number_recall: float | None = None
    value_accuracy: float | None = None  # a form's typed value against its gold (evaluate/forms.py)
    correctness: float | None = None
    faithfulness: float | None = None
    answer_relevancy: float | None = None
    context_relevancy: float | None = None
    judge_notes: str = ""

    @property
    def label(self) -> str:
        return self.number or f"{self.sheet}!{self.row}"


@dataclass
class ConfigEval:
    name: str  # the configuration's name: its TOML file's stem, "default" or "output"
    output: Path
    questions: list[QuestionEval]
    config_file: str = ""
    unmatched_gold: list[str] = field(default_factory=list)  # gold items no output row matched
    notes: list[str] = field(default_factory=list)
    run_info: dict[str, str] = field(default_factory=dict)
    llm_calls: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    rows_run: int | None = None  # rows the run answered or failed: the divisor for per-question usage
    judge_prompt_tokens: int = 0
    judge_completion_tokens: int = 0
    judge_cost_usd: float = 0.0

    def values(self, metric: str) -> list[float | None]:
        return [getattr(q, metric) for q in self.questions]

    def summary(self, metric: str) -> Summary:
        return summarise(self.values(metric), proportion=metric in PROPORTIONS)

    def mean(self, metric: str) -> float | None:
        return self.summary(metric).mean

    @property
    def yesno_answered(self) -> int:
        """Yes/no questions whose answer states a verdict (an evidence-only draft states none)."""
        return sum(1 for q in self.questions if q.answer_type == "yesno" and q.verdict)

    @property
    def without_gold_pages(self) -> int:
        return sum(1 for q in self.questions if not q.gold_pages)

    def per_question(self, value: float | int | None) -> float | None:
        """Usage per question row the run processed (all rows, not only those in the gold key)."""
        rows = self.rows_run or len(self.questions)
        return None if value is None or not rows else value / rows

    def metrics_json(self, judged: bool) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for metric in RETRIEVAL_METRICS + ANSWER_METRICS + (JUDGE_METRICS if judged else []):
            mean = self.mean(metric)
            out[metric] = None if mean is None else round(mean, 4)
        return out

    def usage_json(self) -> dict[str, Any]:
        tokens = None if self.prompt_tokens is None else self.prompt_tokens + (self.completion_tokens or 0)
        per_q = self.per_question(tokens)
        cost_q = self.per_question(self.cost_usd)
        return {"llm_calls": self.llm_calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
                "tokens_per_question": None if per_q is None else round(per_q, 1),
                "cost_per_question_usd": None if cost_q is None else round(cost_q, 6)}


@dataclass
class Comparison:
    a: str
    b: str
    tests: dict[str, PairedTest]  # metric -> paired Wilcoxon test of b against a


@dataclass
class EvalResult:
    k: int
    configs: list[ConfigEval]
    comparisons: list[Comparison] = field(default_factory=list)
    judge_model: str = ""
    table_csv: Path | None = None
    table_json: Path | None = None
    report: Path | None = None
    chart: Path | None = None

    @property
    def judged(self) -> bool:
        return any(getattr(q, metric) is not None for c in self.configs for q in c.questions for metric in JUDGE_METRICS)

    def to_json(self) -> dict[str, Any]:
        first = self.configs[0]
        out: dict[str, Any] = {"output": str(first.output), "questions": len(first.questions), "k": self.k}
        out.update(first.metrics_json(self.judged))
        out["questions_without_gold_pages"] = first.without_gold_pages
        out["yesno_answered"] = first.yesno_answered
        out["unmatched_gold"] = len(first.unmatched_gold)
        out.update(first.usage_json())
        if self.judged:
            out["judge_model"] = self.judge_model
        out.update({"table": _str(self.table_csv), "table_json": _str(self.table_json),
                    "report": _str(self.report), "chart": _str(self.chart)})
        if len(self.configs) > 1:
            out["configs"] = [{"name": c.name, "config": c.config_file, "output": str(c.output),
                               "questions": len(c.questions), **c.metrics_json(self.judged),
                               "yesno_answered": c.yesno_answered, **c.usage_json()}
                              for c in self.configs]
            out["comparisons"] = [
                {"a": cmp.a, "b": cmp.b, "metric": metric, "n": t.n, "mean_a": _r(t.mean_a), "mean_b": _r(t.mean_b),
                 "mean_diff": _r(t.mean_diff), "wins": t.wins, "losses": t.losses, "ties": t.ties,
                 "p_value": _r(t.p_value), "note": t.note}
                for cmp in self.comparisons for metric, t in cmp.tests.items()]
        return out


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _str(path: Path | None) -> str | None:
    return None if path is None else str(path)


def compare(configs: list[ConfigEval], judged: bool) -> list[Comparison]:
    """Every pair of configurations, on the questions both scored (paired by sheet and row)."""
    metrics = RETRIEVAL_METRICS + ANSWER_METRICS + (JUDGE_METRICS if judged else [])
    out = []
    for i, a in enumerate(configs):
        for b in configs[i + 1:]:
            rows_b = {(q.sheet, q.row): q for q in b.questions}
            pairs = [(qa, rows_b[(qa.sheet, qa.row)]) for qa in a.questions if (qa.sheet, qa.row) in rows_b]
            tests = {metric: paired_test([getattr(x, metric) for x, _ in pairs], [getattr(y, metric) for _, y in pairs])
                     for metric in metrics}
            out.append(Comparison(a.name, b.name, tests))
    return out


# --------------------------------------------------------------------------- scoring an output


def _passages(evidence: list) -> list[m.RetrievedPassage]:
    out = []
    for e in evidence:
        # e.page_end already includes the Evidence sheet's `Page end` column (review/reader.py), so
        # a passage running over a page break covers both pages.
        pages = tuple(e.pages)
        try:
            score = float(e.score) if str(e.score).strip() else None
        except ValueError:
            score = None
        out.append(m.RetrievedPassage(e.rank, e.file_name, pages, e.text, e.cited, score))
    return out


def _f(value: bool | None) -> float | None:
    return None if value is None else float(value)


def _run_info_number(info: dict[str, str], *patterns: str) -> float | None:
    """A figure from Run info by the first key matching one of `patterns` (keys vary in wording)."""
    for pattern in patterns:
        for key, value in info.items():
            if re.fullmatch(pattern, key.strip().lower()):
                found = re.search(r"-?\d+(?:\.\d+)?", str(value).replace(",", ""))
                if found:
                    return float(found.group())
    return None


def _judge_all(judge, jobs: list[tuple], concurrency: int, progress=None) -> StageUsage:
    """Judge the questions concurrently (as many at once as the run's `llm.concurrency`); each job
    is (QuestionEval, question, answer, gold answer, passages) and its scores land on the QuestionEval."""
    from concurrent.futures import ThreadPoolExecutor

    total = StageUsage()
    if progress and jobs:
        progress(f"judging {len(jobs)} answers with {judge.model}")
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="autofill-judge") as pool:
        scored = list(pool.map(lambda job: judge.score(*job[1:]), jobs))
    for (q, *_), js in zip(jobs, scored):
        q.correctness, q.faithfulness = js.correctness, js.faithfulness
        q.answer_relevancy, q.context_relevancy = js.answer_relevancy, js.context_relevancy
        q.judge_notes = "; ".join(js.notes)
        total.add(js.usage)
    return total


def score_output(settings, key: GoldKey, output: Path, k: int, name: str, judge=None,
                 progress=None) -> ConfigEval:
    """Score the filled workbook `output` against `key` (see the module docstring)."""
    book = read_filled_workbook(Path(output))
    rows = [q for q in book.questions if q.in_sheet]
    pairs, unmatched = key.match(rows)
    notes = []
    if not pairs:
        notes.append("no row of the output matched a gold question (by number or text)")
    if not book.has_evidence_sheet:
        notes.append("the output has no Evidence sheet: every retrieval metric is 0")
    seen_files = {m.file_key(e.file_name) for row in rows for e in row.evidence}
    for item_file in sorted({g.file for _, item in pairs for g in item.pages}):
        if seen_files and m.file_key(item_file) not in seen_files:
            notes.append(f"gold file {item_file!r} never appears in the Evidence sheet; check its name in the key")
    threshold, tolerance = settings.eval.passage_jaccard, settings.eval.number_tolerance
    questions = []
    jobs: list[tuple] = []
    for row, item in pairs:
        if item.question and m.jaccard(set(normalise_question(row.question).split()),
                                       set(normalise_question(item.question).split())) < 0.5:
            notes.append(f"question {item.number}: matched by number but the texts differ; check the key")
        passages = _passages(row.evidence)
        answer = row.scored_answer  # an evidence-only draft is scored on its quotes
        q = QuestionEval(row.sheet, row.row, row.number or item.number, row.question, item.answer_type,
                         answer=answer, status=row.status, gold_pages=len(item.pages),
                         gold_evidence=len(item.evidence), retrieved=len(passages))
        pm = m.page_metrics(passages, item.pages, k)
        if pm is not None:
            q.hit_at_k, q.recall_at_k, q.precision_at_k, q.mrr, q.ndcg_at_k = pm.hit, pm.recall, pm.precision, pm.mrr, pm.ndcg
        sm = m.passage_metrics(passages, item.evidence, k, threshold)
        if sm is not None:
            q.passage_precision, q.passage_recall, q.passage_f1 = sm.precision, sm.recall, sm.f1
        if item.answer_type == "yesno":
            q.yesno_accuracy = _f(m.verdict_match(answer, item.answer))
            q.verdict = " / ".join(sorted(m.parse_verdict(answer)))
        if item.answer_type == "number":
            nm = m.number_match(answer, item.answer, tolerance)
            if nm is not None:
                q.number_accuracy, q.number_recall = float(nm.matched), nm.recall
        questions.append(q)
        jobs.append((q, row.question, answer, item.answer, m.ordered(passages)[:k]))
    judge_usage = _judge_all(judge, jobs, settings.llm.concurrency, progress) if judge is not None else None
    info = dict(book.run_info)
    result = ConfigEval(name, Path(output), questions, unmatched_gold=[i.number or i.question[:60] for i in unmatched],
                        notes=notes, run_info=info)
    calls = _run_info_number(info, r"(?:total )?llm calls")
    prompt = _run_info_number(info, r"(?:total )?prompt tokens")
    completion = _run_info_number(info, r"(?:total )?completion tokens")
    cost = _run_info_number(info, r"(?:total )?cost(?: usd| \(usd\))?")
    result.llm_calls = None if calls is None else int(calls)
    result.prompt_tokens = None if prompt is None else int(prompt)
    result.completion_tokens = None if completion is None else int(completion)
    result.cost_usd = cost
    answered = _run_info_number(info, r"rows answered")
    failed = _run_info_number(info, r"rows failed")
    if answered is not None:
        result.rows_run = int(answered + (failed or 0))
    if judge_usage is not None:
        result.judge_prompt_tokens = judge_usage.prompt_tokens
        result.judge_completion_tokens = judge_usage.completion_tokens
        result.judge_cost_usd = judge_usage.cost_usd
    return result


def question_rows(result: EvalResult) -> list[dict[str, Any]]:
    """The per-question table: one row per configuration and question."""
    out = []
    for c in result.configs:
        for q in c.questions:
            row = {"config": c.name, **asdict(q)}
            for metric in ALL_METRICS + ["number_recall"]:
                if row[metric] is not None:
                    row[metric] = round(row[metric], 4)
            out.append(row)
    return out
