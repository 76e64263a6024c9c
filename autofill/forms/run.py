"""`autofill run` on a form (issue 45): every datapoint answered as a typed question through the run's
own machinery (answer/opening.open_run: the store, the plan, retrieval, rerank, the answer), gated by
forms/answer.assess, and written into a copy of the form at the package level (workbook/package.py:
every other byte kept, formulas' cached values refreshed), with an Evidence sheet listing each datapoint
(named range, cell, label) with its passages, cited pages, value, checks and, without a model, the
candidate values; and a Run info sheet. Values that fail their checks wait in the Evidence sheet.

    report = run_form(settings, company, form_path, out_dir=None, providers=None, reporter=None)
"""

from __future__ import annotations

import logging
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autofill.forms.answer import Decision, FormAnswer, assess, datapoint_row
from autofill.forms.carry import CarryPlan, Kept
from autofill.forms.model import Datapoint, DatapointKind, Form
from autofill.forms.tables import TableAnswer, answerable_tables, assess_table, table_evidence_rows, table_row
from autofill.records import RowResult, StageUsage
from autofill.reporting import as_reporter
from autofill.settings import Settings
from autofill.states import Outcome
from autofill.forms.reader import read_form
from autofill.workbook import headers
from autofill.workbook.sheets import first_rows, not_a_question_sheet
from autofill.outputlock import OutputLock
from autofill.fileio import ensure_not_open, ensure_writable_dir
from autofill.companylock import reading
from autofill.forms.carry import plan_carry, read_state
from autofill.forms import reuse
from autofill.workbook.history import keep_previous
from autofill.forms.selection import answerable, plan_tables, reporting_period, with_units
from autofill.store.chroma_store import now_iso
from autofill.library.forms import from_evidence_rows
from autofill.forms.values import ValueType, parse_value
from autofill.forms.model import GateOpens
from autofill.records import CheckResult, Severity
from autofill.fileio import atomic_write_bytes
from autofill.forms.carry import RECORD_COLUMNS, RECORD_SHEET, cell_values, record_rows
from autofill.workbook.evidence import FORM_EVIDENCE_COLUMNS, add_sheet, form_evidence_rows
from autofill.workbook.package import CellWrite, patch_bytes

log = logging.getLogger(__name__)


@dataclass
class FormReport:
    output: Path
    datapoints: int
    counts: dict[str, int]  # by Decision value
    seconds: float
    evidence_only: bool
    period: str = ""
    usage: dict[str, StageUsage] = field(default_factory=dict)
    answers: list[FormAnswer] = field(default_factory=list, repr=False)  # the datapoints answered by this run
    kept: list[Kept] = field(default_factory=list, repr=False)  # those kept from the previous output
    history: Path | None = None  # the previous output, kept before it was replaced

    @property
    def ok(self) -> bool:
        return not self.counts.get(Decision.FAILED.value)

    def to_json(self) -> dict:
        return {"output": str(self.output), "form": True, "datapoints": self.datapoints,
                **{re.sub(r"\W+", "_", k): self.counts.get(k, 0) for k in (d.value for d in Decision)},
                "reporting_period": self.period, "evidence_only": self.evidence_only,
                "llm_calls": sum(u.calls for u in self.usage.values()), "seconds": round(self.seconds, 2),
                "history": str(self.history) if self.history else None}

    def summary(self) -> str:
        parts = ", ".join(f"{n} {k}" for k, n in self.counts.items() if n)
        return f"Filled {self.output} ({self.datapoints} datapoints: {parts or 'none'}) in {self.seconds:.1f}s"


def answered_points(form: Form) -> list[Datapoint]:
    """The datapoints a run answers one by one, with their units: the answerable inputs and the computed
    totals that are not text (answered for the reviewer to compare, never written)."""
    return with_units(form, answerable(form) + [dp for dp in form.computed if dp.kind is not DatapointKind.TEXT])


def form_rows(form: Form, points: list[Datapoint], period: str) -> list:
    """Every question row a run of `form` answers: each of `points` (answered_points) and each open table;
    what a form across languages is centred on (answer/opening.OpenedRun.centre_on)."""
    return [*(datapoint_row(dp, period, form.language) for dp in points),
            *(table_row(form, t, period, form.language) for t in answerable_tables(form))]


def form_of(path: Path, explicit: bool = False, settings: Settings | None = None) -> Form | None:
    """The workbook at `path` read as a form, as `inspect` reads it: named input cells before the question
    columns; a label / input layout (a bank's form without names, keys "Sheet!B12") only when no question
    column is found. None: a questionnaire of question rows, sheet / column options given (`explicit`),
    or not a workbook at all (CSV, a missing file: `run` reports those as before)."""

    path = Path(path)
    if explicit or path.suffix.lower() not in (".xlsx", ".xlsm") or not path.is_file():
        return None
    form = read_form(path, layout=False)
    if form is None and not has_question_column(path, settings):
        form = read_form(path, named=False)
    return form


def has_question_column(path: Path, settings: Settings | None = None) -> bool:
    """Whether the questionnaire reading would find a question column (a header row of its words, as
    workbook/layout.read_questions looks for it, in the first rows of a visible sheet): `run` then answers
    the rows. Only that header search, on a read-only load: an ordinary questionnaire's run pays a few
    hundredths of a second for it, not a second reading. An unreadable workbook counts as one, so `run`
    reports it as it always has. `settings`: sheet / column options make it a questionnaire."""
    if settings is not None and (settings.workbook.sheet or settings.workbook.header_row
                                 or settings.workbook.question_col):
        return True
    import openpyxl


    try:
        wb = openpyxl.load_workbook(path, read_only=True)
    except Exception:  # noqa: BLE001 - the questionnaire reading says what is wrong with the file
        return True
    try:
        for ws in wb.worksheets:
            if not hasattr(ws, "iter_rows") or not_a_question_sheet(ws, named=False):
                continue
            if headers.find_header_row(first_rows(ws))[0]:
                return True
        return False
    except Exception:  # noqa: BLE001 - as above
        return True
    finally:
        wb.close()


def run_form(settings: Settings, company: str, path: Path, out_dir: Path | None = None, output: Path | None = None,
             providers: Any = None, reporter: Any = None, form: Form | None = None, fresh: bool = False,
             gate: Any = None) -> FormReport:
    """Answer every datapoint of the form at `path` for `company` and write the filled copy. An earlier
    output of it keeps what people did (forms/carry.py): cells changed by hand, values approved in the
    Evidence sheet, and, unless `fresh`, the values an earlier run wrote; only the rest is answered.
    `gate`: batch's portfolio/budget.RowGate (its cost cap): a datapoint it refuses is left pending."""
    from autofill.answer.opening import open_run
    from autofill.answer.pipeline import output_path

    started = time.monotonic()
    path = Path(path)
    form = form or read_form(path)
    out = (Path(output) if output else output_path(settings, company, path, out_dir).with_suffix(path.suffix)).absolute()
    reporter = as_reporter(reporter)

    ensure_writable_dir(out.parent)  # before any work: a folder that cannot be written, or the output
    ensure_not_open(out)  # open in Excel, is said now, not after the model calls

    # The company's turn, as a run of a questionnaire takes it: no ingest or forget changes the store meanwhile.
    with OutputLock(out), reading(settings, company, "run"):
        opened = open_run(settings, company, providers=providers)
        opened.announce(reporter.message)
        period, year = reporting_period(settings, form, opened.documents)
        periods = {name: getattr(d, "period", "") for name, d in opened.documents.items()}
        # Computed datapoints (the form's totals) are answered too, for the reviewer to compare the form's
        # formula with the report's figure; they are never written.
        computed = {dp.key for dp in form.computed}
        points = answered_points(form)
        # Datapoints in another language than the reports are searched relative to the whole form, as a
        # questionnaire's rows are (search/centring.py): every row the form is answered as, kept ones too,
        # so that a datapoint is searched the same way whatever an earlier output left to answer.
        opened.centre_on(form_rows(form, points, period))

        state = read_state(out, form)
        carry = plan_carry(form, points, state, fresh)
        tables, kept_tables = plan_tables(form, state, fresh)
        carry.kept.update(kept_tables)
        order = {dp.key: i for i, dp in enumerate(points)}
        order.update({t.name: len(order) + i for i, t in enumerate(answerable_tables(form))})
        from autofill.library import forms as library

        library.learn(settings, company, approved_values(carry, period, out), _now())
        points = [dp for dp in points if dp.key not in carry.kept]
        rows = [datapoint_row(dp, period, form.language) for dp in points]
        # The answer library's values of these datapoints: the same period's reused (library.reuse =
        # "approved", cited documents unchanged) without a model call, else shown beside the answer.
        offers = library.offers(settings, company, [dp.key for dp in points], period, opened.documents)
        reused = {}
        for dp, row in zip(points, rows):
            offer = offers.get(dp.key)
            if offer and offer.same and offer.unchanged and settings.library.reuse == "approved" and \
                    dp.key not in computed and (fa := reuse.reused_answer(dp, row, offer)) is not None:
                reused[dp.key] = fa
        pairs = [(dp, row) for dp, row in zip(points, rows) if dp.key not in reused]
        bar = reporter.bar("Datapoints", len(pairs) + len(tables), "datapoints")

        answer = gate.wrap(lambda _ctx, row: opened.answer(row)) if gate is not None else \
            (lambda _ctx, row: opened.answer(row))

        def one(pair):
            dp, row = pair
            result = answer(None, row)
            if result is None:  # the cost cap refused it: not answered, nothing written; the next run answers it
                bar.advance()
                return FormAnswer(dp, RowResult(question=row, answer=None, outcome=Outcome.PENDING), Decision.PENDING)
            answered = assess(dp, result, year, periods)
            reuse.annotate(answered, offers.get(dp.key))
            if dp.key in computed and answered.decision is Decision.WRITTEN:
                answered.decision = Decision.COMPUTED
            bar.advance()
            return answered

        def one_table(table):  # an open table: one question, its rows checked one by one (forms/tables.py)
            result = answer(None, table_row(form, table, period, form.language))
            bar.advance()
            if result is None:  # the cost cap refused it: left for the next run
                return None
            return assess_table(form, table, result, year, periods)

        workers = max(1, settings.llm.concurrency) if opened.chat is not None else 1
        with ThreadPoolExecutor(max_workers=workers) as pool:
            done = {fa.datapoint.key: fa for fa in pool.map(one, pairs)}
            table_answers = [ta for ta in pool.map(one_table, tables) if ta is not None]
        answers = [reused.get(dp.key) or done[dp.key] for dp in points] + table_answers
        bar.close()
        answers = gated(answers, kept_gates(carry.kept.values()))
        usage: dict[str, StageUsage] = {}
        for fa in answers:
            for stage, u in fa.result.usage.items():
                usage.setdefault(stage, StageUsage()).add(u)
        kept = list(carry.kept.values())
        counts = {d.value: sum(1 for fa in [*answers, *kept] if fa.decision is d) for d in Decision}
        report = FormReport(out, len(answers) + len(kept), counts, time.monotonic() - started, opened.chat is None,
                            period, usage, answers, kept)

        # An earlier output (a reviewer may have typed into it) is kept in history/ before it is replaced.
        report.history = keep_previous(out, settings.workbook.history_versions)
        entries = sorted([*answers, *kept], key=lambda e: order[e.datapoint.key])
        write_form(path, out, entries, run_info(opened, report), form, carry)
        report.seconds = time.monotonic() - started
    return report


def _now() -> str:

    return now_iso()


def approved_values(carry: CarryPlan, period: str, out: Path) -> list:
    """The values a reviewer approved in the previous output's Evidence sheet (kept as APPROVED), as
    answer-library form values of `period` (library/forms.py)."""

    found = []
    for k in carry.kept.values():
        if k.decision is Decision.APPROVED:
            v = from_evidence_rows(k.datapoint, k.rows, period, out.name, _now())
            if v is not None:
                found.append(v)
    return found


def kept_gates(kept) -> dict[str, bool]:
    """The yes / no each kept datapoint (forms/carry.Kept: typed by hand, approved, an earlier run's) holds
    in its cell, for the gates it opens or closes."""

    out = {}
    for k in kept:
        if k.datapoint.kind is DatapointKind.BOOLEAN and k.writes:
            value = parse_value(k.writes[0][2], ValueType.BOOLEAN, None, list(k.datapoint.allowed))
            if value.ok:
                out[k.datapoint.key] = bool(value.value)
    return out


def gated(answers: list[FormAnswer], kept: dict[str, bool] | None = None) -> list[FormAnswer]:
    """A datapoint behind a gate (a yes / no that opens it): when its gate is written with the answer that
    closes it, the datapoint does not apply and waits, saying why; when the gate has no answer (not
    disclosed, waiting), the value is written with a soft check saying the gate is open to a reviewer.
    `kept`: the yes / no of gates kept from the previous output (kept_gates), not answered this run."""

    by_key = {fa.datapoint.key: fa for fa in answers}
    kept = kept or {}
    for fa in answers:
        for gate in fa.datapoint.gates:  # every gate the template ties it to must be open
            if fa.decision not in (Decision.WRITTEN, Decision.REUSED):
                break
            opener = by_key.get(gate.key)
            want = gate.opens is GateOpens.YES
            said = opener.value.value if opener is not None and opener.decision in (Decision.WRITTEN, Decision.REUSED) \
                and opener.value is not None else kept.get(gate.key)
            if said is want:
                continue
            if said is None:
                fa.checks.append(CheckResult("gate", False, Severity.SOFT,
                                             f"{gate.key} is not answered; this datapoint applies when it is "
                                             f"{'yes' if want else 'no'}"))
                continue
            fa.decision = Decision.WAITING
            fa.checks.append(CheckResult("gate", False, Severity.HARD, f"{gate.key} is answered "
                                         f"{'no' if want else 'yes'}: this datapoint does not apply"))
    return answers


def run_info(opened: Any, report: FormReport) -> list[tuple]:
    plan = opened.plan
    rows = [("plan", plan.first_line()), ("company", opened.company), ("reporting period", report.period),
            ("datapoints", report.datapoints),
            *((f"datapoints {k}", n) for k, n in report.counts.items()),
            ("documents", ", ".join(sorted(opened.documents)))]
    for stage, u in report.usage.items():
        rows.append((f"llm.{stage}.calls", u.calls))
    return rows


def write_form(source: Path, out: Path, entries: list[FormAnswer | Kept], info: list[tuple], form: Form | None = None,
               carry: CarryPlan | None = None) -> Path:
    """The filled copy: values of WRITTEN answers and of kept datapoints (hand edits, approvals, earlier
    values) into their cells (package level, nothing else changed), then the Evidence and Run info sheets
    and the very hidden record of what each datapoint's cells hold (forms/carry.py); atomic, the input
    only read."""

    writes = [CellWrite(*w) for w in (carry.carried if carry else [])]
    evidence: list[tuple] = []
    for e in entries:
        if isinstance(e, Kept):
            writes += [CellWrite(*w) for w in e.writes]
            evidence += e.rows
        else:
            writes += [CellWrite(*w) for w in e.cells()] if e.decision in (Decision.WRITTEN, Decision.REUSED) else []
            evidence += table_evidence_rows(e) if isinstance(e, TableAnswer) else form_evidence_rows([e])
    data = patch_bytes(Path(source).read_bytes(), writes)
    data, _ = add_sheet(data, "Evidence", FORM_EVIDENCE_COLUMNS, evidence)
    data, _ = add_sheet(data, "Run info", ["Key", "Value"], info)
    if form is not None:  # what each datapoint's cells hold as written: a later change is a person's
        points = [dp for dp in form.datapoints if not any(form.is_formula(c) for c in dp.cells)]
        statuses = {e.datapoint.key: e.decision.value for e in entries}
        for e in entries:  # an open table's columns carry its status: a later run keeps what it filled
            if e.datapoint.table and e.datapoint.key == e.datapoint.table and form.table(e.datapoint.key):
                statuses.update({k: e.decision.value for k in form.table(e.datapoint.key).columns})
        data, _ = add_sheet(data, RECORD_SHEET, RECORD_COLUMNS, record_rows(cell_values(data, points), statuses),
                            hidden=True)
    atomic_write_bytes(out, data)
    return out
