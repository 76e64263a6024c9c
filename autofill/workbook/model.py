"""What layout detection found in a workbook: per sheet the header row, the columns by role, the
question rows, the rows skipped and why. Plain dataclasses so `autofill inspect`, the pipeline,
writeback and live Excel all read the same plan."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autofill.language import name as language_name
from autofill.records import QuestionRow
from autofill.workbook.headers import ROLE_LABELS

# Sheets autofill writes; never read as questionnaires.
EVIDENCE_SHEET = "Evidence"
RUN_INFO_SHEET = "Run info"
REVIEW_LOG_SHEET = "Review log"  # the decisions made in `autofill review` (review_app/apply.py)
EVIDENCE_COLUMNS = ["Row", "Question", "Rank", "File", "Page", "Cited", "Score", "Text", "Sheet", "Page end",
                    "Printed page", "OCR"]
RUN_INFO_COLUMNS = ["Key", "Value"]


@dataclass
class Column:
    role: str  # "question", "answer", "reasoning", ...
    letter: str  # "C"
    header: str  # the header cell's text (for added columns: the header autofill will write)
    added: bool = False  # not in the workbook yet: autofill adds it when writing

    def to_json(self) -> dict:
        return {"letter": self.letter, "header": self.header, "added": self.added}


@dataclass
class SkippedRow:
    row: int
    reason: str  # "blank", "section heading", "merged cell", "no question text", "formula without value"
    text: str = ""


@dataclass
class SheetLayout:
    name: str
    header_row: int
    columns: dict[str, Column]
    questions: list[QuestionRow] = field(default_factory=list)
    skipped: list[SkippedRow] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    protected: bool = False
    explicit: bool = False  # mapping given by the user rather than detected
    # Drop-downs openpyxl will drop on save (x14 extension lists); writeback re-creates them.
    extension_validations: list = field(default_factory=list)

    def letter(self, role: str) -> str | None:
        col = self.columns.get(role)
        return col.letter if col else None

    @property
    def question_rows(self) -> list[int]:
        return [q.row for q in self.questions]

    @property
    def allowed_values(self) -> dict[int, list[str]]:
        return {q.row: q.allowed_values for q in self.questions if q.allowed_values}

    @property
    def added_columns(self) -> list[Column]:
        return [c for c in self.columns.values() if c.added]

    def to_json(self) -> dict:
        return {
            "sheet": self.name,
            "header_row": self.header_row,
            "explicit_mapping": self.explicit,
            "protected": self.protected,
            "columns": {role: c.to_json() for role, c in self.columns.items()},
            "questions": [
                {"row": q.row, "number": q.number, "section": q.section, "question": q.question,
                 "form_of_answer": q.form_of_answer, "allowed_values": q.allowed_values,
                 "allowed_values_source": q.allowed_values_source, "existing_answer": q.existing_answer,
                 "status": q.status, "review": q.review}
                for q in self.questions
            ],
            "skipped": [{"row": s.row, "reason": s.reason, "text": s.text} for s in self.skipped],
            "warnings": self.warnings,
        }


@dataclass
class WorkbookLayout:
    path: Path
    kind: str  # "xlsx" or "csv" (a CSV is converted to a one-sheet workbook; the output is .xlsx)
    sheets: list[SheetLayout]
    ignored_sheets: dict[str, str] = field(default_factory=dict)  # sheet name -> why it is left alone
    warnings: list[str] = field(default_factory=list)  # workbook-wide, incl. features openpyxl drops

    def sheet(self, name: str) -> SheetLayout:
        for s in self.sheets:
            if s.name == name:
                return s
        raise KeyError(name)

    @property
    def questions(self) -> list[QuestionRow]:
        return [q for s in self.sheets for q in s.questions]

    @property
    def language(self) -> str:
        """The questionnaire's language (ISO 639-1, autofill/language.py), "" when unknown."""
        return next((q.language for q in self.questions if q.language), "")

    @property
    def languages(self) -> tuple[str, ...]:
        """Each language of its rows (several where a sheet mixes them: language.row_languages), known
        ones in row order; () when unknown."""
        return tuple(dict.fromkeys(q.language for q in self.questions if q.language))

    @property
    def all_warnings(self) -> list[str]:
        return self.warnings + [f"sheet {s.name!r}: {w}" for s in self.sheets for w in s.warnings]

    def to_json(self) -> dict:
        return {
            "path": str(self.path),
            "kind": self.kind,
            "questions": len(self.questions),
            "language": self.language,
            "languages": list(self.languages),
            "sheets": [s.to_json() for s in self.sheets],
            "ignored_sheets": self.ignored_sheets,
            "warnings": self.all_warnings,
        }

    def describe(self) -> str:
        """The human summary `autofill inspect` prints."""
        lines = [f"{Path(self.path).name}: {len(self.questions)} question rows in "
                 f"{len(self.sheets)} sheet{'s' if len(self.sheets) != 1 else ''}"]
        lines.append(f"  language: {', '.join(language_name(c) for c in self.languages) or language_name('')}")
        if self.kind == "csv":
            lines.append("  (CSV file: read as a one-sheet workbook; the filled copy is written as .xlsx)")
        for s in self.sheets:
            how = "given" if s.explicit else "detected"
            lines.append("")
            lines.append(f"Sheet {s.name!r}: header on row {s.header_row} ({how})"
                         + ("; sheet is protected" if s.protected else ""))
            found = [f"{ROLE_LABELS.get(r, r)} = {c.letter} ({c.header!r})" for r, c in s.columns.items()
                     if not c.added]
            lines.append("  columns: " + ", ".join(found))
            added = [f"{c.header} -> {c.letter}" for c in s.added_columns]
            if added:
                lines.append("  will add: " + ", ".join(added))
            lines.append(f"  question rows ({len(s.questions)}): {_ranges(s.question_rows)}")
            by_reason: dict[str, list[int]] = {}
            for sk in s.skipped:
                by_reason.setdefault(sk.reason, []).append(sk.row)
            for reason, rows in by_reason.items():
                lines.append(f"  skipped, {reason} ({len(rows)}): {_ranges(rows)}")
            dropdown = [q for q in s.questions if q.allowed_values_source == "dropdown"]
            if dropdown:
                sets = sorted({", ".join(q.allowed_values) for q in dropdown})
                lines.append(f"  drop-downs on {len(dropdown)} answer cells: " + " | ".join(sets))
            for q in s.questions[:200]:
                num = f"[{q.number}] " if q.number else ""
                text = q.question if len(q.question) <= 90 else q.question[:87] + "..."
                extra = f"  (allowed: {', '.join(q.allowed_values)})" if q.allowed_values else ""
                state = ""
                if q.existing_answer or q.review:
                    state = f"  [answered{', review: ' + q.review if q.review else ''}]"
                lines.append(f"    row {q.row:>4}  {num}{text}{extra}{state}")
            if len(s.questions) > 200:
                lines.append(f"    ... and {len(s.questions) - 200} more")
        if self.ignored_sheets:
            lines.append("")
            lines.append("Sheets left alone: " + ", ".join(f"{n!r} ({why})" for n, why in self.ignored_sheets.items()))
        warnings = self.all_warnings
        if warnings:
            lines.append("")
            lines.append("Warnings:")
            lines.extend(f"  - {w}" for w in warnings)
        return "\n".join(lines)


def _ranges(rows: list[int]) -> str:
    """[4, 5, 6, 9] -> "4-6, 9"."""
    if not rows:
        return "none"
    rows = sorted(rows)
    out, start, prev = [], rows[0], rows[0]
    for r in rows[1:] + [None]:
        if r is not None and r == prev + 1:
            prev = r
            continue
        out.append(f"{start}-{prev}" if prev != start else str(start))
        if r is not None:
            start = prev = r
    return ", ".join(out)
