"""Workbook benchmark: layout detection and writeback on a 5,000-row questionnaire, and a faithful
round trip of the BHP development questionnaire when ../shared is present.

    python benchmarks/workbook.py [ROWS]

Prints seconds for building the workbook, inspect (read_questions), write_results with 6 evidence
passages per row (30,000 Evidence rows) and reloading the output, plus peak RSS. Wall-clock times on a
shared machine are noisy; what matters is that thousands of rows take seconds, not minutes."""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BHP = ROOT.parent / "shared" / "datasets" / "bhp" / "questionnaire.xlsx"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build(path: Path, rows: int) -> None:
    import openpyxl
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.worksheet.datavalidation import DataValidation

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws["A1"] = "Large questionnaire"
    for c, h in enumerate(["No.", "Section", "Question", "Form of answer", "Explanation", "Answer", "Comments"], 1):
        cell = ws.cell(row=3, column=c, value=h)
        cell.font, cell.fill = Font(bold=True), PatternFill("solid", fgColor="DDDDDD")
    ws.freeze_panes = "A4"
    r, yes = 4, []
    for i in range(1, rows + 1):
        if i % 50 == 1:
            ws.cell(row=r, column=2, value=f"Section {i // 50 + 1}").font = Font(bold=True)
            r += 1
        yn = i % 2 == 0
        for c, v in enumerate([i, f"Section {i // 50 + 1}", f"Question {i}: does the company disclose item {i}?",
                               "Yes/No and a short explanation" if yn else "Short text", f"Guidance {i}"], 1):
            ws.cell(row=r, column=c, value=v).alignment = Alignment(wrap_text=True)
        if yn:
            yes.append(f"F{r}")
        r += 1
    dv = DataValidation(type="list", formula1='"Yes,No,Partially,Not disclosed"')
    dv.sqref = " ".join(yes)
    ws.add_data_validation(dv)
    wb.save(path)


def results_for(rows):
    from autofill.records import Answer, Citation, Passage, RowResult

    out = []
    for q in rows:
        passages = [Passage(f"{q.row}-{i}", "report.pdf", i + 1, i + 1, "S", f"Passage text {i} " * 40, 0.9 - i / 10,
                            i + 1) for i in range(6)]
        ans = Answer("Yes. Disclosed on page 2." if q.allowed_values else "A short text answer.", "Reasoning " * 30,
                     [Citation("report.pdf", 2), Citation("report.pdf", 3)], [2, 3], "medium")
        out.append(RowResult(q, ans, passages))
    return out


def timed(label: str, fn):
    t0 = time.perf_counter()
    value = fn()
    print(f"{label:<34} {time.perf_counter() - t0:7.2f} s")
    return value


def main(argv: list[str]) -> int:
    import openpyxl

    from autofill.settings import Settings
    from autofill.workbook.layout import read_questions
    from autofill.workbook.writeback import write_results

    n = int(argv[1]) if len(argv) > 1 else 5000
    settings = Settings()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        src = tmp / "large.xlsx"
        timed(f"build {n}-row questionnaire", lambda: build(src, n))
        layout, rows = timed("read_questions", lambda: read_questions(settings, src))
        print(f"  {len(rows)} question rows, {sum(1 for q in rows if q.allowed_values_source == 'dropdown')} drop-downs")
        results = results_for(rows)
        out = timed("write_results (6 passages/row)", lambda: write_results(settings, src, layout, results,
                                                                               tmp / "out" / "large_filled.xlsx", {}))
        wb = timed("reload output", lambda: openpyxl.load_workbook(out))
        print(f"  output {out.stat().st_size / 1e6:.1f} MB, Evidence rows {wb['Evidence'].max_row - 1}")
        if BHP.exists():
            layout, rows = timed("BHP read_questions", lambda: read_questions(settings, BHP))
            s = layout.sheets[0]
            print(f"  BHP: {len(rows)} questions, header row {s.header_row}, "
                  f"{sum(1 for q in rows if q.allowed_values_source == 'dropdown')} drop-downs, "
                  f"ignored {layout.ignored_sheets}, warnings {layout.all_warnings}")
            timed("BHP write_results", lambda: write_results(settings, BHP, layout, results_for(rows),
                                                              tmp / "out" / "bhp_filled.xlsx", {}))
        else:
            print("BHP questionnaire not found; skipped")
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
