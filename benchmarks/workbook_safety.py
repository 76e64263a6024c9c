"""What the workbook's safety costs on a large output (issue 43): `safety.guard_workbook` (every text of
the workbook made safe before each save) and `recovery.damage` (every XML part of the output parsed
before `run` and `review` continue it), against what a run spends on that workbook anyway (writing it
with `write_results`, loading it with openpyxl).

    python benchmarks/workbook_safety.py [ROWS]     (default 5000; 6 passages of ~600 characters a row)

The output is written by the real writer from a generated questionnaire and results (no model, no
store), so the figures are the workbook code's alone. Times are CPU seconds of this process
(time.process_time): the shared machine's load does not inflate them.

Measured (issue 43, shared 2-core machine, 5,000 rows, 410,062 cells, 1.9 MB output): write_results 4.34 s
CPU of which guard_workbook 0.28 s (1.52 s before its quick first look, `celltext._SUSPECT`: a regex class
holding the astral non-characters is several times slower); damage() 0.41 s against 7.05 s for openpyxl
to load the same file (which run and review do anyway)."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    from autofill.checks.tier import decide_tier
    from autofill.records import Answer, Citation, Passage, RowResult
    from autofill.settings import Settings
    from autofill.workbook.layout import read_questions
    from autofill.workbook.recovery import damage
    from autofill.workbook.safety import guard_workbook, load_workbook_safely
    from autofill.workbook.writeback import write_results
    from tests.workbook_builders import build_questionnaire

    rows = int(argv[0]) if argv else 5000
    text = ("Scope 1 emissions were 12,400 tCO2e in FY2024, down 8% on the year before, across the four "
            "operated sites; the figures follow the GHG Protocol and were assured by the external auditor. ") * 3
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        questions = [("Climate", f"Question {i}: what were the Scope 1 emissions of site {i} in FY2024?", "Number",
                      False) for i in range(rows)]
        src = build_questionnaire(folder / "q.xlsx", questions=questions, extras=False, dropdown=False)
        layout, qs = read_questions(Settings(), src)
        results = []
        for q in qs:
            passages = [Passage(f"c{q.row}-{k}", "report.pdf", k + 1, k + 1, "", text, 0.5, k + 1) for k in range(6)]
            res = RowResult(q, Answer(answer="12,400 tCO2e", reasoning=text[:300], confidence="high",
                                      citations=[Citation("report.pdf", 1)]), passages)
            res.tier = decide_tier(res.checks)
            results.append(res)
        t = time.process_time()
        out = write_results(Settings(), src, layout, results, folder / "out.xlsx", {"note": "benchmark"})
        write_s = time.process_time() - t
        t = time.process_time()
        wb = load_workbook_safely(out, rich_text=True)
        load_s = time.process_time() - t
        t = time.process_time()
        fixed = guard_workbook(wb)
        guard_s = time.process_time() - t
        t = time.process_time()
        why = damage(out)
        damage_s = time.process_time() - t
        cells = sum(len(ws._cells) for ws in wb.worksheets)
        size = out.stat().st_size
        print(f"{rows} rows, {cells:,} cells in openpyxl (Evidence rows are streamed, not cells), "
              f"{size / 1e6:.1f} MB output")
        print(f"CPU: write_results {write_s:.2f} s (guard included); openpyxl load {load_s:.2f} s")
        print(f"guard_workbook {guard_s:.3f} s ({len(fixed)} places fixed); damage() {damage_s:.3f} s "
              f"({why or 'opens'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
