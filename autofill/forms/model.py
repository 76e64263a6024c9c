"""What a form is, as autofill reads it (issue 45): typed records, no reading code.

A form is a workbook whose inputs are cells rather than rows of a question column: EFRAG's VSME
Digital Template (each input cell a named range), or a label cell with its input cell beside it
(a bank's layout). `forms.reader.read_form(path)` builds a `Form`; the answering side (typed
answers per datapoint) and the cell writer build on these records, so their names stay stable.

Terms:
- a datapoint is one thing the form asks for: a single input cell (a named range or, in a layout
  form, "Sheet!B12"), one cell of a fixed breakdown (renewable / non-renewable electricity, base
  year / target year, a Scope 3 category), a date made of year / month / day cells, or one column
  of an open table (sites, pollutants ...) that is filled row by row within the table's rows;
- a gate is the boolean datapoint whose answer opens (or closes) the datapoints behind it;
- formula cells (totals, intensities, labels) are never written by autofill.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path


class DatapointKind(str, Enum):
    """The type of value an input cell takes."""

    NUMBER = "number"  # with unit and scale when the form gives them
    PERCENT = "percent"  # a ratio shown as a percentage (cell value 0.25 = 25 %)
    BOOLEAN = "boolean"  # yes / no, true / false drop-down
    ENUMERATION = "enumeration"  # one of `Datapoint.allowed`
    YEAR = "year"  # a four-digit year
    DATE = "date"  # one date cell
    DATE_PARTS = "date_parts"  # a date made of several cells (`Datapoint.parts`: year, month, day)
    TEXT = "text"  # free text (a text block)


class FormSource(str, Enum):
    """How the form's datapoints were found."""

    NAMED = "named"  # input cells are named ranges (VSME Digital Template and the like)
    LAYOUT = "layout"  # a label cell with its input cell beside it, no names


class GateOpens(str, Enum):
    """Which answer of a gate makes the datapoints behind it apply."""

    YES = "yes"
    NO = "no"


@dataclass(frozen=True, order=True)
class FormCell:
    """One cell: its sheet's name and its A1 reference without `$` ("D12")."""

    sheet: str
    ref: str

    @property
    def address(self) -> str:
        """The cell as a formula writes it: 'Sheet name'!D12."""
        quoted = "'" + self.sheet.replace("'", "''") + "'"
        return f"{quoted}!{self.ref}"

    def __str__(self) -> str:
        return f"{self.sheet}!{self.ref}"


@dataclass(frozen=True)
class Gate:
    """The boolean datapoint that opens a datapoint, and the answer that opens it."""

    key: str
    opens: GateOpens = GateOpens.YES
    source: str = ""  # where the template ties the datapoint to it ("conditional format Sheet!G21:J24", "formula Sheet!D9")


@dataclass(frozen=True)
class Datapoint:
    """One thing the form asks for and the cell(s) its answer goes into.

    key: the named range ("GrossScope1GreenhouseGasEmissions"), or "Sheet!B12" in a layout form.
    cells: the input cell(s): one for a single value; the parts of a DATE_PARTS datapoint in
        `parts` order; an open table column's cells from its first to its last row.
    label: the datapoint's label as the form shows it, in `Form.language`.
    section: the form's section code when it has them (VSME: B1..B11, C1..C9), else the nearest
        heading above the label.
    unit / scale: the unit the cell is in ("tCO2e", "MWh", "EUR", "%") and its power of ten
        (3 = thousands) when the form says so.
    allowed: an ENUMERATION's (or BOOLEAN's) drop-down values, in the form's order and spelling.
    gate: the boolean that makes this datapoint apply, if any.
    table: the open table's name when the datapoint is a column filled row by row.
    row: the sheet row of the (first) input cell.
    member: for one cell of a fixed breakdown, the breakdown member ("RenewableEnergyMember",
        "BaselineYearMember"); `base` then names the concept it breaks down.
    formula_cells: formulas computed from this datapoint (totals, intensities): never written.
    parts: for DATE_PARTS, the part each of `cells` holds ("year", "month", "day").
    """

    key: str
    cells: tuple[FormCell, ...]
    label: str
    section: str = ""
    kind: DatapointKind = DatapointKind.TEXT
    unit: str = ""
    scale: int = 0
    allowed: tuple[str, ...] = ()
    gate: Gate | None = None
    table: str = ""
    row: int = 0
    member: str = ""
    base: str = ""
    formula_cells: tuple[FormCell, ...] = ()
    parts: tuple[str, ...] = ()
    help: str = ""
    reference: str = ""  # the paragraph the form cites beside the label ("24(a)")
    unit_cell: FormCell | None = None  # where the unit is chosen, when the form has such a cell
    multiple: bool = False  # several of `allowed` may be chosen (one check box per cell in `cells`)
    alias_of: str = ""  # another name for the same cell(s): filled together with that datapoint
    heading: str = ""  # the section heading the datapoint sits under, as the form shows it
    column: str = ""  # a breakdown cell's column heading ("Base Year"), also at the end of `label`
    more_gates: tuple[Gate, ...] = ()  # further gates it needs, besides `gate` (an AND in the template)

    @property
    def gates(self) -> tuple[Gate, ...]:
        """Every gate that must be open for the datapoint to apply."""
        return ((self.gate,) if self.gate is not None else ()) + self.more_gates

    @property
    def cell(self) -> FormCell:
        """The (first) input cell."""
        return self.cells[0]

    @property
    def is_table_column(self) -> bool:
        return bool(self.table)

    @property
    def sheet(self) -> str:
        return self.cells[0].sheet


@dataclass(frozen=True)
class FormTable:
    """An open table: rows the user fills one by one (sites, pollutants, waste types ...)."""

    name: str
    sheet: str
    first_row: int
    last_row: int
    columns: tuple[str, ...] = ()  # the keys of its column datapoints, left to right
    label: str = ""
    section: str = ""

    @property
    def size(self) -> int:
        return self.last_row - self.first_row + 1


@dataclass(frozen=True)
class Form:
    """A workbook read as a form.

    language: the language its labels were resolved in (the template's Language Selection, an
        ISO code like "en"), "" when the form has no such choice.
    languages: the languages its translation table offers.
    formula_cells: every formula cell of the input sheets: autofill never writes them.
    reporting_period_keys: the datapoints that say the reporting period (start / end dates or
        year), which answering fills from the run rather than from documents.
    """

    path: Path
    source: FormSource
    datapoints: tuple[Datapoint, ...]
    language: str = ""
    languages: tuple[str, ...] = ()
    formula_cells: frozenset[FormCell] = field(default_factory=frozenset)
    reporting_period_keys: tuple[str, ...] = ()
    tables: tuple[FormTable, ...] = ()
    sheets: tuple[str, ...] = ()  # the sheets that hold inputs
    warnings: tuple[str, ...] = ()
    computed: tuple[Datapoint, ...] = ()  # named formula cells (totals, intensities): shown, never written
    language_cell: FormCell | None = None  # where the form chooses its label language: not a datapoint

    def datapoint(self, key: str) -> Datapoint | None:
        for dp in self.datapoints:
            if dp.key == key:
                return dp
        return None

    def table(self, name: str) -> FormTable | None:
        for t in self.tables:
            if t.name == name:
                return t
        return None

    def is_formula(self, cell: FormCell) -> bool:
        return cell in self.formula_cells

    def gated_by(self, key: str) -> tuple[Datapoint, ...]:
        """The datapoints the boolean `key` opens."""
        return tuple(dp for dp in self.datapoints if any(g.key == key for g in dp.gates))
