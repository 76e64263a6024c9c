"""The portfolio workbook's `By datapoint` sheet: companies laid against framework datapoints rather
than question texts, so questionnaires of different customers line up (one company's "Scope 1
emissions (tCO2e)" and another's "Direct GHG emissions" fall in one column). Each column is a catalogue
concept, headed with its label and its ESRS / IFRS S2 / GRI / TCFD / CDP requirements; each cell the
answer of the company's row that asks for it most surely (offline mapping), coloured as on the
Portfolio sheet."""

from __future__ import annotations

from typing import Any

from autofill.frameworks.coverage import SHOWN, default_mapper
from autofill.frameworks.mapping import specific_requirements

SHEET = "By datapoint"


class DatapointSheet:
    def __init__(self) -> None:
        self.mapper = default_mapper()
        # (company, {concept: (strength, short answer, fill)}) per company
        self.rows: list[tuple[str, dict[str, tuple[float, str, str]]]] = []

    def add(self, company: str, cells: dict[str, tuple[str, str, Any]]) -> None:
        """`cells`: the Portfolio sheet's {question key: (question, short answer, fill)} of one company."""
        best: dict[str, tuple[float, str, str]] = {}
        for question, text, fill in cells.values():
            for m in self.mapper.map(question).matches:
                if m.strength >= SHOWN and m.strength > best.get(m.concept, (0.0,))[0]:
                    best[m.concept] = (m.strength, text, fill)
        self.rows.append((company, best))

    def write(self, wb: Any, set_text) -> None:
        """Add the sheet to `wb` (nothing when no company asks for any datapoint)."""
        from openpyxl.styles import Alignment, Font, PatternFill
        from openpyxl.utils import get_column_letter

        cat = self.mapper.catalogue
        concepts = [c for c in cat.concepts if any(c in best for _, best in self.rows)]
        if not concepts:
            return
        ws = wb.create_sheet(SHEET)
        bold, wrap = Font(bold=True), Alignment(wrap_text=True, vertical="top")
        set_text(ws.cell(row=1, column=1), "Company").font = bold
        for c, concept in enumerate(concepts, start=2):
            head = set_text(ws.cell(row=1, column=c),
                            f"{cat.concepts[concept].label}\n{'; '.join(specific_requirements(cat, concept))}")
            head.font, head.alignment = bold, wrap
            ws.column_dimensions[get_column_letter(c)].width = 32
        for r, (company, best) in enumerate(self.rows, start=2):
            set_text(ws.cell(row=r, column=1), company).font = bold
            for c, concept in enumerate(concepts, start=2):
                if concept in best:
                    _, text, fill = best[concept]
                    cell = set_text(ws.cell(row=r, column=c), text)
                    cell.fill, cell.alignment = PatternFill("solid", fgColor=fill), wrap
        ws.column_dimensions["A"].width = 28
        ws.freeze_panes = "B2"
