"""What each company of a portfolio still needs, worked out before any model call: which PDFs are new
or changed, which rows an earlier run already finished, and whether the whole company is up to date.

Up to date means: the last batch run of this company completed (no failed, unparsed or pending row)
with the same questionnaire bytes, the same stored documents, the same model, retrieval settings and
prompts, and its filled workbook is still there as that run wrote it (a reviewer's decisions in it, or
a `run` on it, make the next batch run the company again, which applies them). Such a company is not
run again; its figures come from the portfolio state file (`.portfolio-state.json` in the output folder).

Each company's filled workbook is the one `autofill run` writes for the same company and questionnaire
(`output_for`): in the workspace's reports_out/ (or `--out DIR`, as `run --out DIR`), never a copy of
the batch's own, so a reviewer works in one workbook and the overview reads what they decided."""

from __future__ import annotations

import glob
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autofill.answer.checkpoint import READABLE_FORMATS, question_key, safe_name
from autofill.fileio import atomic_write_bytes
from autofill.hashing import file_sha256
from autofill.plan import resolve_plan
from autofill.portfolio.estimate import CompanyEstimate, estimate_rows
from autofill.portfolio.manifest import CompanyEntry
from autofill.run_identity import declare_settings
from autofill.settings import Settings
from autofill.store.reading import find_for_reading
from autofill.workbook.reviewer import rows_to_answer
from autofill.portfolio.form_cost import estimate_form

STATE_FILE = ".portfolio-state.json"


def company_settings(settings: Settings, entry: CompanyEntry) -> Settings:
    """The settings a company of the manifest is run with: its year (the manifest's `year`) is the
    questionnaire's reporting year, which tiers older figures (part of the declared run, so of its key)."""
    import dataclasses

    if not entry.year:
        return settings
    return dataclasses.replace(settings, run=dataclasses.replace(settings.run, reporting_year=int(entry.year)))


def run_key(settings: Settings, questionnaire_sha: str, documents: dict[str, Any], form: bool = False) -> str:
    """Everything that changes a company's answers (besides reviewers' edits in the questionnaire,
    which change its bytes): the declared run (autofill/run_identity.py, as `run`'s checkpoint key)
    with the questionnaire's bytes; `form`: the questionnaire is a form (its prompt joins the key)."""
    return declare_settings(settings, form=form).key(documents, questionnaire_sha)


class PortfolioState:
    """Per company, the outcome of its last batch run (JSON, written atomically after each company)."""

    def __init__(self, out_dir: Path) -> None:
        self.path = Path(out_dir) / STATE_FILE
        self._lock = threading.Lock()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.companies: dict[str, dict[str, Any]] = data.get("companies", {}) if isinstance(data, dict) else {}
        except (OSError, ValueError):
            self.companies = {}

    def get(self, company: str) -> dict[str, Any]:
        with self._lock:
            return dict(self.companies.get(company, {}))

    def put(self, company: str, record: dict[str, Any]) -> None:
        with self._lock:
            self.companies[company] = record
            blob = json.dumps({"format": 1, "companies": self.companies}, indent=1, ensure_ascii=False, default=str)
            atomic_write_bytes(self.path, blob.encode("utf-8"))


@dataclass
class CompanyPlan:
    entry: CompanyEntry
    output: Path
    estimate: CompanyEstimate
    key: str = ""  # run_key with the documents as stored now ("" when the store changes first)
    to_ingest: list[str] = field(default_factory=list)  # new or changed PDF files
    previous: dict[str, Any] = field(default_factory=dict)  # the state record of the last run
    form: Any = None  # forms.model.Form when the questionnaire is a form of named input cells (as `run` decides)


def output_for(settings: Settings, entry: CompanyEntry, out_dir: Path | None) -> Path:
    """The company's filled workbook: where `autofill run --company C --questionnaire Q [--out out_dir]`
    writes it (answer/pipeline.output_path), or the manifest's `output` file name in that folder."""
    from autofill.answer.pipeline import output_path

    if entry.output:
        return (Path(out_dir) if out_dir else settings.reports_dir) / entry.output
    path = output_path(settings, entry.company, entry.questionnaire, out_dir)
    if Path(entry.questionnaire).suffix.lower() == ".xlsm":  # a form keeps its macros: run_form's suffix
        from autofill.forms.run import form_of

        if form_of(Path(entry.questionnaire)) is not None:
            return path.with_suffix(".xlsm")
    return path


def plan_company(settings: Settings, entry: CompanyEntry, out_dir: Path | None, state: PortfolioState) -> CompanyPlan:
    """The company's estimate and what is left to do. Opens its store (if any) for this call only.
    `out_dir`: the folder given with `batch --out` (None: reports_out/, as `run`)."""
    from autofill.workbook.layout import read_questions

    plan = resolve_plan(settings)
    model, mode, rerank = plan.model, plan.mode, plan.reranker
    output = output_for(settings, entry, out_dir)
    q_sha = file_sha256(entry.questionnaire)
    store = find_for_reading(settings, entry.company)
    documents = store.documents() if store is not None else {}
    del store  # one store open at a time: nothing of it is kept
    from autofill.ingest.planning import files_to_parse

    from autofill.forms.run import form_of

    to_ingest = [str(p) for p in files_to_parse(settings, documents, list(entry.reports))]
    form = form_of(Path(entry.questionnaire))
    key = run_key(company_settings(settings, entry), q_sha, documents, form=form is not None) if not to_ingest else ""
    previous = state.get(entry.company)
    up_to_date = bool(key and previous.get("key") == key and previous.get("complete")
                      and _unchanged(previous.get("output", ""), previous.get("output_sha256")))
    if form is not None:  # a form: each datapoint a typed question, answered by forms/run.run_form as `run` does

        est = estimate_form(company_settings(settings, entry), entry.company, form, model if not up_to_date else "",
                            mode, rerank, documents, output)
        if up_to_date:
            est.rows_done, est.rows, est.model = est.rows_done + est.rows, 0, model
        est.up_to_date = up_to_date
        est.documents_to_ingest = len(to_ingest)
        return CompanyPlan(entry=entry, output=output, estimate=est, key=key, to_ingest=to_ingest, previous=previous,
                           form=form)
    _layout, rows = read_questions(settings, entry.questionnaire)
    to_answer, kept = rows_to_answer(rows)
    if up_to_date:
        est = estimate_rows(settings, entry.company, [], model, mode, rerank)
        est.rows_done = len(to_answer) + len(kept)
    else:
        # New documents change the run's fingerprint: an earlier checkpoint no longer applies.
        remaining = _without_done(settings, entry.company, q_sha, to_answer) if not to_ingest else to_answer
        est = estimate_rows(settings, entry.company, remaining, model, mode, rerank, documents)
        est.rows_done = len(to_answer) - len(remaining) + len(kept)
    est.up_to_date = up_to_date
    est.documents_to_ingest = len(to_ingest)
    if to_ingest and settings.ingest.contextualize and model:  # priced with the rows, before any call
        from autofill.ingest.context_estimate import estimate_contextualize

        est.add_contextualize(estimate_contextualize(settings, entry.company, list(entry.reports), model=model))
    return CompanyPlan(entry=entry, output=output, estimate=est, key=key, to_ingest=to_ingest, previous=previous)


def _unchanged(output: str, sha256: str | None) -> bool:
    """The workbook is there with the bytes the batch wrote (a record without them: run it again)."""
    return bool(output and sha256) and Path(output).is_file() and file_sha256(output) == sha256


def _without_done(settings: Settings, company: str, questionnaire_sha: str, rows: list[Any]) -> list[Any]:
    """`rows` less those an interrupted earlier run finished (its newest checkpoint)."""
    folder = settings.reports_dir / ".checkpoints"
    found = sorted(folder.glob(f"{glob.escape(safe_name(company))}_{questionnaire_sha[:12]}_*.jsonl"),
                   key=lambda p: p.stat().st_mtime)
    done: set[str] = set()
    if found:  # only the keys: the rows themselves (and their passages from the store) are the run's to load
        with open(found[-1], encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a torn last line
                if isinstance(record, dict) and record.get("format") in READABLE_FORMATS and "key" in record:
                    done.add(record["key"])
    return [row for row in rows if question_key(row) not in done]


def estimate_run(settings: Settings, company: str, questionnaire: Path) -> CompanyEstimate:
    """The estimate for one `autofill run` (rows an interrupted earlier run finished are left out)."""
    from autofill.workbook.layout import read_questions

    plan = resolve_plan(settings)
    model, mode, rerank = plan.model, plan.mode, plan.reranker
    store = find_for_reading(settings, company)
    documents = store.documents() if store is not None else {}
    del store
    _layout, rows = read_questions(settings, questionnaire)
    to_answer, kept = rows_to_answer(rows)
    remaining = _without_done(settings, company, file_sha256(questionnaire), to_answer)
    est = estimate_rows(settings, company, remaining, model, mode, rerank, documents)
    est.rows_done = len(to_answer) - len(remaining) + len(kept)
    return est


def consent_reason(settings: Settings, rows: int, cost_usd: float | None, model: str, what: str = "rows") -> str:
    """Why a run with a model needs the user's go-ahead (run.confirm_rows, run.confirm_above_usd); ""
    when it does not. Evidence-only runs cost nothing and never ask. `cost_usd` None: no price applies
    (providers/cost.py); only the row count can ask then, and the question says the cost is unknown.
    `what`: what the rows are ("datapoints" of a form)."""
    if not model:
        return ""
    reasons = []
    if rows > settings.run.confirm_rows:
        reasons.append(f"{rows} {what} to answer (over {settings.run.confirm_rows})")
    if cost_usd is not None and cost_usd > settings.run.confirm_above_usd:
        reasons.append(f"an estimated ${cost_usd:.2f} (over ${settings.run.confirm_above_usd:.2f})")
    unknown = ", cost unknown (no price in [cost.prices])" if reasons and cost_usd is None else ""
    return f"this run with {model} has {' and '.join(reasons)}{unknown}" if reasons else ""
