"""`--live`: fill the workbook open in Microsoft Excel as rows complete, through xlwings.

Only Excel on Windows or macOS can be driven this way; xlwings cannot drive Excel on Linux (even its
file reader needs a licence), so there autofill says so and the default engine (a filled copy written
with openpyxl) is the way. The live writer fills the same cells as the copy, from the same plan
(`row_plan.plan_row`), and never touches a row a reviewer approved. It does not save the workbook: the
user sees the answers arrive and saves when they are happy; the filled copy is still written."""

from __future__ import annotations

import sys
from pathlib import Path

from autofill.errors import InputError
from autofill.records import RowResult
from autofill.states import ReviewState, parse_review
from autofill.workbook.model import WorkbookLayout
from autofill.workbook.safety import FORMULA_PREFIXES, clean_text
from autofill.workbook.row_plan import plan_row, settle
from autofill.settings import Settings

LINUX_MESSAGE = ("--live needs Microsoft Excel on Windows or macOS; xlwings cannot drive Excel on Linux. "
                 "Run without --live to write a filled copy.")


def live_supported(platform: str | None = None) -> bool:
    return (platform or sys.platform) in ("win32", "darwin")


def open_live(path: Path, layout: WorkbookLayout | None = None, settings=None, platform: str | None = None):
    """Attach to `path` open in Excel (or open it there) and return a LiveWorkbook writer.

    Raises InputError on Linux, without xlwings, or when Excel cannot open the file."""
    if not live_supported(platform):
        raise InputError(LINUX_MESSAGE)
    try:
        import xlwings as xw  # noqa: PLC0415 - optional dependency, only with --live
    except ImportError:
        raise InputError("--live needs xlwings: pip install 'autofill[live]' (and Microsoft Excel)") from None
    path = Path(path)
    if layout is None:
        from autofill.workbook.layout import read_questions

        layout, _ = read_questions(settings or Settings(), path)
    try:
        book = xw.Book(str(path.resolve()))
    except Exception as exc:  # noqa: BLE001 - xlwings surfaces COM/AppleScript errors of many kinds
        raise InputError(f"--live could not open {path.name} in Excel: {exc}") from None
    return LiveWorkbook(book, layout)


def _excel_text(value) -> str | None:
    """Text as typed into Excel: a leading apostrophe keeps formula-like text as text."""
    if value is None or value == "":
        return None
    text = clean_text(str(value))
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


class LiveWorkbook:
    """Writes RowResults into an open workbook. `book` is an xlwings Book (or anything with
    `.sheets[name].range(address).value`)."""

    def __init__(self, book, layout: WorkbookLayout):
        self.book, self.layout = book, layout
        self._headers_done: set[str] = set()

    def _range(self, sheet: str, address: str):
        return self.book.sheets[sheet].range(address)

    def _headers(self, sheet_name: str) -> None:
        if sheet_name in self._headers_done:
            return
        sheet = self.layout.sheet(sheet_name)
        for col in sheet.added_columns:
            rng = self._range(sheet_name, f"{col.letter}{sheet.header_row}")
            if not rng.value:
                rng.value = col.header
        self._headers_done.add(sheet_name)

    def write(self, result: RowResult) -> bool:
        """Fill one row; False when the row was left alone (approved by a reviewer, or unknown)."""
        q = result.question
        try:
            sheet = self.layout.sheet(q.sheet)
        except KeyError:
            return False
        review = sheet.letter("review")
        if review and not sheet.columns["review"].added:
            current = self._range(q.sheet, f"{review}{q.row}").value
            if parse_review(current) is ReviewState.APPROVED:
                return False
        self._headers(q.sheet)
        answer = sheet.letter("answer")
        current_answer = self._range(q.sheet, f"{answer}{q.row}").value if answer else None
        for role, value in settle(plan_row(q, result), result, current_answer).items():
            letter = sheet.letter(role)
            if letter:
                self._range(q.sheet, f"{letter}{q.row}").value = _excel_text(value)
        return True

    __call__ = write  # the pipeline calls the writer as a per-row sink

    def close(self) -> None:
        """Nothing to release: the workbook stays open in Excel for the user to review and save."""
