"""A form's datapoint answered as a typed question, through the same per-row machinery as a
questionnaire's rows (answer/row.py: retrieval, second stage, rerank, generate), and the gate that
decides whether its value goes into the form.

`datapoint_row` makes the question row: the datapoint's label, section, type, unit, allowed values and
the form's reporting period, answered with the `form_answer` prompt (default_templates/form_answer.j2).
`assess` reads the reply as a value of the datapoint's type in the form's unit (forms/values.py) and
checks it against the cited passages: the figure (or each figure it was computed from, which must add
up to it) must be in a cited passage with its unit and scale (checks/figures.py), and a cited passage
or document must be for the reporting year. A value that passes is written; one that fails waits in the
Evidence sheet with its evidence until a reviewer approves it. Without a model (evidence-only), a
datapoint gets its passages and, when numeric, the candidate values they hold (forms/candidates.py):
drafts, never written."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from enum import Enum
from typing import Any, Mapping, Sequence

from autofill.answer.generate import extract_json_object
from autofill.checks.figures import check_figures
from autofill.checks.numbers import extract_years
from autofill.checks.periods import period_year
from autofill.checks.row import cited_passages
from autofill.forms.candidates import Candidate, candidates
from autofill.forms.model import Datapoint, DatapointKind
from autofill.forms.units import Unit, normalise_units, parse_unit, quantities, unit_in_label, unit_of_concept
from autofill.forms.values import TypedValue, ValueType, cell_value, parse_value
from autofill.records import CheckResult, Passage, QuestionRow, RowResult, Severity
from autofill.states import Outcome

KIND_TYPES = {DatapointKind.NUMBER: ValueType.NUMBER, DatapointKind.PERCENT: ValueType.NUMBER,
              DatapointKind.BOOLEAN: ValueType.BOOLEAN, DatapointKind.ENUMERATION: ValueType.ENUM,
              DatapointKind.YEAR: ValueType.INTEGER, DatapointKind.DATE: ValueType.DATE,
              DatapointKind.DATE_PARTS: ValueType.DATE, DatapointKind.TEXT: ValueType.TEXT}
_SUM_SLACK = 1e-3  # computed values: the parts' sum within 0.1 %


class Decision(str, Enum):
    """What became of a datapoint's answer; the value is the Evidence sheet's Status."""

    WRITTEN = "written"
    WAITING = "waiting for approval"  # a value whose checks failed: in the Evidence sheet only
    DRAFT = "draft"  # no model: passages and candidate values for a reviewer
    COMPUTED = "form computes it"  # passed its checks, but the form's own formula fills the cell: never written
    NOT_DISCLOSED = "not disclosed"
    FAILED = "failed"
    APPROVED = "approved"  # a reviewer approved the value in the Evidence sheet's Review column: written
    EDITED = "kept: edited by hand"  # a person changed the cells of the previous output: their values kept
    KEPT = "kept: earlier run"  # an earlier run's value nobody changed, kept without asking again
    REUSED = "reused from the answer library"  # a reviewer's approved value of the same datapoint and period
    PENDING = "pending: cost cap reached"  # not answered: `batch --max-cost` left no budget; the next run answers it


# The decisions whose values are in the form's cells.
IN_FORM = frozenset({Decision.WRITTEN, Decision.APPROVED, Decision.EDITED, Decision.KEPT, Decision.REUSED})


@dataclass
class DatapointRow(QuestionRow):
    """A datapoint as a question row (`answer_cell` is its input cell); the prompt reads these fields."""

    datapoint_key: str = ""
    label: str = ""
    section_name: str = ""
    value_type: str = ValueType.TEXT.value
    unit: str = ""
    period: str = ""
    answer_template: str = "form_answer"

    @property
    def key(self) -> str:
        """One datapoint, not one sheet row: a row of a form holds several (base year, target year ...)."""
        return f"{self.sheet}!{self.answer_cell or self.row}"


def form_unit(dp: Datapoint) -> Unit | None:
    if dp.kind is DatapointKind.PERCENT:
        return parse_unit("%")
    if dp.kind is not DatapointKind.NUMBER:
        return None
    return (parse_unit(dp.unit) if dp.unit else None) or unit_in_label(dp.label) or unit_of_concept(dp.key)


def datapoint_row(dp: Datapoint, period: str = "", language: str = "") -> DatapointRow:
    """The question row a datapoint is answered as."""
    vtype = KIND_TYPES.get(dp.kind, ValueType.TEXT)
    unit = form_unit(dp)
    allowed = list(dp.allowed) if vtype in (ValueType.ENUM, ValueType.BOOLEAN) else []
    described = {ValueType.NUMBER: f"A number{f' in {unit.symbol}' if unit else ''}",
                 ValueType.INTEGER: "A whole number", ValueType.BOOLEAN: "Yes or No",
                 ValueType.ENUM: "One of the allowed values", ValueType.DATE: "A date",
                 ValueType.TEXT: "A short text"}[vtype]
    question = dp.label + (f" ({unit.symbol})" if unit else "") + (f", reporting period {period}" if period else "")
    return DatapointRow(sheet=dp.sheet, row=dp.row or 0, question=question, section=dp.section,
                        form_of_answer=described, explanation=dp.help, allowed_values=allowed,
                        allowed_values_source="dropdown" if allowed else "", answer_cell=dp.cell.ref,
                        language=language, datapoint_key=dp.key, label=dp.label, section_name=dp.section,
                        value_type=vtype.value, unit=unit.symbol if unit else "", period=period)


@dataclass
class FormAnswer:
    """A datapoint's answer, its checks and what became of it."""

    datapoint: Datapoint
    result: RowResult
    decision: Decision
    value: TypedValue | None = None
    checks: list[CheckResult] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    quote: str = ""
    year: str = ""

    @property
    def cited(self) -> list[Passage]:
        return cited_passages(self.result)[0]

    def cells(self) -> list[tuple[str, str, Any]]:
        """(sheet, ref, value) to write when the decision is WRITTEN (or a reviewer approved it)."""
        return cell_writes(self.datapoint, self.value) if self.value is not None and self.value.ok else []


def cell_writes(dp: Datapoint, value: TypedValue) -> list[tuple[str, str, Any]]:
    """What each input cell of `dp` gets for `value`: a percentage as a fraction (25 % -> 0.25), a figure
    in the form's scale (3 = thousands), a boolean as its drop-down spells it, a date in parts."""
    v = value.value
    if dp.kind is DatapointKind.DATE_PARTS and isinstance(v, date):
        parts = {"year": v.year, "month": v.month, "day": v.day}
        return [(c.sheet, c.ref, parts[p]) for c, p in zip(dp.cells, dp.parts) if p in parts]
    if isinstance(v, float) and not isinstance(v, bool):
        v = v / 100 if dp.kind is DatapointKind.PERCENT else v / 10 ** dp.scale if dp.scale else v
        v = int(v) if float(v).is_integer() and abs(v) < 1e15 else v
    else:
        v = cell_value(value, dp.allowed)
    return [(dp.cell.sheet, dp.cell.ref, v)]


def assess(dp: Datapoint, result: RowResult, reporting_year: int | None = None,
           periods: Mapping[str, str] | None = None) -> FormAnswer:
    """The decision on one answered (or drafted) datapoint row."""
    unit = form_unit(dp)
    vtype = KIND_TYPES.get(dp.kind, ValueType.TEXT)
    if result.answer is None:
        return FormAnswer(dp, result, Decision.FAILED,
                          checks=[CheckResult("value", False, Severity.HARD, result.error or "no answer")])
    if result.outcome is Outcome.DRAFTED:
        found = candidates(dp.label, unit, result.passages, reporting_year) if vtype.numeric else []
        return FormAnswer(dp, result, Decision.DRAFT, candidates=found)
    reply, _ = extract_json_object(result.answer.raw)
    reply = reply or {}
    raw = _field(reply, "answer", result.answer.answer)
    value = parse_value(raw, vtype, unit, list(dp.allowed), written_unit=str(_field(reply, "unit", "") or ""))
    quote, year = str(_field(reply, "quote", "") or ""), str(_field(reply, "year", "") or "")
    if value.problem == "not disclosed":
        return FormAnswer(dp, result, Decision.NOT_DISCLOSED, value, quote=quote, year=year)
    checks = [CheckResult("value", value.ok, Severity.HARD,
                          f"{value.written} read as {vtype.value}" if value.ok else value.problem)]
    cited, uncited = cited_passages(result)
    if not cited:
        checks.append(CheckResult("citations", False, Severity.HARD, "no cited passage"))
    if value.ok and vtype.numeric:
        computed = _field(reply, "computed_from", []) or []
        checks += figure_checks(value, unit, cited, uncited, computed if isinstance(computed, list) else [computed])
        if dp.kind is not DatapointKind.YEAR:  # a base or target year is no value for the reporting year
            checks += year_checks(reporting_year, cited, year, periods or {})
    ok = all(c.passed for c in checks if c.severity is Severity.HARD)
    return FormAnswer(dp, result, Decision.WRITTEN if ok else Decision.WAITING, value, checks, quote=quote, year=year)


def _field(reply: Mapping[str, Any], name: str, default: Any) -> Any:
    for key, value in reply.items():
        if str(key).strip().lower().replace(" ", "_") == name:
            return value
    return default


def _normalised(passages: Sequence[Passage]) -> list[Passage]:
    from dataclasses import replace

    return [replace(p, text=normalise_units(p.text)) for p in passages]


def _figure_text(value: float, unit: Unit | None) -> str:
    """The value as checks/numbers.py reads it: in its dimension's base unit."""
    base = {"mass": "t", "energy": "GJ", "volume": "litres", "percent": "%"}
    if unit is None or unit.dim not in base:
        return f"{value:.10g}"
    return f"{value * unit.factor:.10g} {base[unit.dim]}"


def figure_checks(value: TypedValue, unit: Unit | None, cited: Sequence[Passage], uncited: Sequence[Passage],
                  computed_from: Sequence[Any] = ()) -> list[CheckResult]:
    """The value is in a cited passage with its unit and scale, or each figure it was computed from is
    and they add up to it."""
    number = float(value.value)  # type: ignore[arg-type]
    direct = _in_cited(number, unit, cited, uncited)
    if direct.passed or not computed_from:
        return [direct]
    parts, failed = [], []
    for part in computed_from:
        found = quantities(str(part))
        if not found:
            failed.append(f"{part} is not a figure")
            continue
        q = found[0]
        if q.dim != "plain" and unit is not None and q.dim != unit.dim:
            failed.append(f"{q.text} is not in {unit.symbol}")
            continue
        part_value = q.value / unit.factor if unit is not None and q.dim == unit.dim else q.value
        check = _in_cited(part_value, unit if q.dim != "plain" else None, cited, uncited)
        if not check.passed:
            failed.append(check.reason)
        parts.append(part_value)
    total = sum(parts)
    if not failed and abs(total - number) <= max(_SUM_SLACK * abs(number), 1e-9):
        shown = " + ".join(str(p) for p in computed_from)
        return [CheckResult("figures", True, Severity.HARD, f"{_shown(number, unit)} = {shown}, each in the cited passages")]
    if not failed:
        failed.append(f"the parts add up to {total:,.6g}, not {number:,.6g}")
    return [CheckResult("figures", False, Severity.HARD, f"{_shown(number, unit)} not in cited passages; " + "; ".join(failed))]


def _in_cited(number: float, unit: Unit | None, cited: Sequence[Passage], uncited: Sequence[Passage]) -> CheckResult:
    """One figure against the cited passages (checks/figures.py on the passages with cubic metres read),
    naming an uncited passage that has it."""
    cited_n, uncited_n = _normalised(cited), _normalised(uncited)
    text = _figure_text(number, unit)
    checks = check_figures(text, cited_n, uncited_n) or [_bare_figure(number, cited_n)]
    if all(c.passed for c in checks):
        return CheckResult("figures", True, Severity.HARD, f"{_shown(number, unit)} found in the cited passages")
    if _under_a_unit(number, unit, cited):
        # A table cell whose unit and scale are in its column header ("Scope 1 (kt CO2e)" over "16.628"):
        # checks/numbers.py reads the cell as a bare figure; forms/candidates.py reads it with the header.
        return CheckResult("figures", True, Severity.HARD,
                           f"{_shown(number, unit)} found in the cited passages (unit in the table's header)")
    reason = next(c.reason for c in checks if not c.passed).replace(text, _shown(number, unit))
    return CheckResult("figures", False, Severity.HARD, reason)


def _under_a_unit(number: float, unit: Unit | None, cited: Sequence[Passage]) -> bool:
    if unit is None:
        return False
    return any(abs(c.value - number) <= max(1e-3 * abs(number), 1e-9)
               for c in candidates("", unit, cited, None, limit=10_000))


def _shown(number: float, unit: Unit | None) -> str:
    text = f"{number:,.0f}" if number.is_integer() else f"{number:,.6g}"
    return f"{text} {unit.symbol}" if unit else text


def _bare_figure(number: float, cited: Sequence[Passage]) -> CheckResult:
    for p in cited:
        if any(abs(q.raw - abs(number)) < 1e-9 for q in quantities(p.text)) or \
                any(y == number for y, _ in extract_years(p.text)):
            return CheckResult("figures", True, Severity.HARD, f"{number:g} found in the cited passages")
    return CheckResult("figures", False, Severity.HARD, f"{number:g} not in cited passages")


def year_checks(reporting_year: int | None, cited: Sequence[Passage], year: str,
                periods: Mapping[str, str]) -> list[CheckResult]:
    """The value is for the reporting year: the reply says no other year, and a cited passage states the
    year or a cited document is for it."""
    if not reporting_year:
        return []
    said = {y for y, _ in extract_years(year)}
    if said and reporting_year not in said:
        return [CheckResult("reporting year", False, Severity.HARD,
                            f"the value is for {year}, not the reporting year {reporting_year}")]
    stated = {y for p in cited for y, _ in extract_years(p.text)}
    documents = {period_year(periods.get(p.file_name, "")) for p in cited}
    if reporting_year in stated or reporting_year in documents:
        return [CheckResult("reporting year", True, Severity.HARD, f"cited evidence is for {reporting_year}")]
    return [CheckResult("reporting year", False, Severity.HARD,
                        f"no cited passage or document is for the reporting year {reporting_year}")]
