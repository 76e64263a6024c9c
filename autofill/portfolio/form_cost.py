"""The model cost of a form's run, estimated before it is paid (issue 45), the way a questionnaire's is
(portfolio/estimate.estimate_rows): each datapoint `run` would answer is made into the very question row
it is answered as (forms/answer.datapoint_row, with its `form_answer` prompt), and its HyDE, rerank and
answer prompts are rendered from the real templates and priced with the workspace's calibration and
the model's price (providers/cost.py; no price: cost unknown, never $0).

The datapoints are those forms/run.run_form answers: its answerable inputs and the computed totals it
answers for comparison, less those a re-run keeps from the existing output (forms/carry.plan_carry: a
person's edits and approvals, an earlier run's values unless `fresh`).

    est = estimate_form(settings, company, form, documents=store.documents(), output=out)
    est = estimate_run(settings, form, company, out)  # `autofill run`'s: None without a model
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from autofill.forms.model import DatapointKind, Form
from autofill.settings import Settings
from autofill.portfolio.estimate import estimate_rows
from autofill.store.reading import find_for_reading


def form_points(form: Form) -> list:
    """The datapoints run_form answers (forms/selection.py: answerable inputs, non-text computed totals)."""
    from autofill.forms.selection import answerable, with_units

    return with_units(form, answerable(form) + [dp for dp in form.computed if dp.kind is not DatapointKind.TEXT])


def estimate_form(settings: Settings, company: str, form: Form, model: str | None = None, mode: Any = None,
                  rerank: Any = None, documents: dict[str, Any] | None = None, output: Path | None = None,
                  fresh: bool = False) -> Any:
    """A portfolio.estimate.CompanyEstimate (`form` True) of the datapoints a run of `form` would answer
    (`rows`) and of those the existing `output` keeps (`rows_done`); `model`, `mode`, `rerank`: the
    plan's (resolved here when None); `documents`: the store's manifest (the reporting period, the
    candidates a small store can return)."""
    from autofill.forms.answer import datapoint_row
    from autofill.forms.carry import plan_carry, read_state
    from autofill.forms.selection import plan_tables, reporting_period
    from autofill.forms.tables import table_row
    from autofill.plan import resolve_plan

    if model is None or mode is None or rerank is None:
        plan = resolve_plan(settings)
        model = plan.model if model is None else model
        mode = plan.mode if mode is None else mode
        rerank = plan.reranker if rerank is None else rerank
    points = form_points(form)
    # The output's cells are read once: what it keeps of the datapoints and of the open tables is not priced.
    state = read_state(Path(output), form) if output is not None and Path(output).is_file() else None
    kept = set(plan_carry(form, points, state, fresh).kept) if state is not None else set()
    tables, _kept_tables = plan_tables(form, state, fresh)
    period, _year = reporting_period(settings, form, documents or {})
    rows = [datapoint_row(dp, period, form.language) for dp in points if dp.key not in kept]
    rows += [table_row(form, t, period, form.language) for t in tables]  # an open table: one question
    est = estimate_rows(settings, company, rows, model or "", mode, rerank, documents)
    est.form = True
    est.rows_done = len(kept)
    return est


def estimate_run(settings: Settings, form: Form, company: str, output: Path | None = None,
                 fresh: bool = False) -> Any:
    """The estimate of `autofill run` on `form` for `company` (None without a model: nothing to pay);
    the CLI asks with it as it asks for a questionnaire (portfolio/plan.consent_reason)."""

    if not settings.llm_configured:
        return None
    store = find_for_reading(settings, company)
    documents = store.documents() if store is not None else {}
    del store
    return estimate_form(settings, company, form, documents=documents, output=output, fresh=fresh)
