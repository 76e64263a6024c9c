"""Build a retrieval development set from its source of truth, `questions.json`.

    python benchmarks/devsets/build_devset.py benchmarks/devsets/bhp_expert --pdfs /work/shared/datasets/bhp

`questions.json` is a list of questions:

    {"no": "E1", "kind": "extraction", "section": "...", "question": "...", "form_of_answer": "...",
     "explanation": "..." (may be empty), "gold_answer": "...", "answer_type": "yesno" | "number" | "text",
     "gold": [{"file": "<PDF file name>", "page": <1-based PDF page index>, "evidence": "<verbatim excerpt>"}]}

The script first checks every question (fields present, numbers unique, answer types known, evidence
10-200 characters) and VERIFIES that every evidence string occurs in PyMuPDF's text of its stated page
(NFKC, case, whitespace and typographic quotes normalised; a hyphen at a line end is tolerated either
way, so "five-year", "five- year" and a word split across lines all match). Any failure is listed and
the script exits 1 without writing anything.

Then it writes, into the same folder:
  questionnaire.xlsx  what a customer would send: sheet "Questionnaire" with a title row, header on
                      row 3 (No., Section, Question, Form of answer, Explanation, Answer, Comments),
                      a shaded heading row before each new section, a Yes/No/Partially/Not disclosed
                      drop-down on the Answer cell of yes/no questions, frozen header; plus an
                      "Instructions" sheet (the layout of the BHP questionnaire in shared/datasets/bhp)
  gold.json           the answer key in the format of shared/datasets/bhp/gold.json:
                      [{no, question, gold_answer, answer_type, gold: [{file, page, evidence}]}]

The output is deterministic: the same questions.json gives byte-identical files (fixed workbook
timestamps and zip entry dates). The PDFs are only read, never copied.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import re
import sys
import unicodedata
import zipfile
from pathlib import Path

ANSWER_TYPES = ("yesno", "number", "text")
KINDS = ("extraction", "change", "levers", "other")
REQUIRED = ("no", "section", "question", "form_of_answer", "gold_answer", "answer_type", "gold")
TITLE = "Customer sustainability questionnaire — climate (expert set)"
HEADER = ["No.", "Section", "Question", "Form of answer", "Explanation", "Answer", "Comments"]
WIDTHS = {"A": 6.0, "B": 26.0, "C": 55.0, "D": 24.0, "E": 60.0, "F": 22.0, "G": 40.0}
DROPDOWN = '"Yes,No,Partially,Not disclosed"'
FIXED_TIME = dt.datetime(2021, 1, 1, 0, 0, 0)
INSTRUCTIONS = [
    "Instructions",
    None,
    "1. Please answer every question in the 'Questionnaire' sheet, using the 'Answer' column (yellow).",
    "2. For Yes/No questions, choose Yes, No, Partially or Not disclosed from the drop-down list and give a "
    "short explanation in 'Comments'.",
    "3. For numeric questions, give the figure with its unit and reporting year (e.g. '16.2 Mt CO2-e, FY2021').",
    "4. The 'Explanation' column describes what counts as a good answer; please follow it.",
    "5. Base answers on published company disclosures and cite the document and page in 'Comments' where "
    "possible.",
    "6. Rows with a shaded background are section headings and need no answer.",
    None,
    "Please return the completed questionnaire to your account manager.",
]

_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"', "„": '"',
                         "\u00ad": ""})


# ----------------------------------------------------------------------------- matching (pure)

def normalise(text: str) -> str:
    """NFKC (ligatures such as 'ﬀ' become 'ff'), typographic quotes made plain, soft hyphens dropped,
    lower case, runs of whitespace collapsed to one space."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).lower()
    return re.sub(r"\s+", " ", text).strip()


def _dehyphenate(text: str) -> str:
    return re.sub(r"-\s*", "", text)


def occurs(evidence: str, page_text: str) -> bool:
    """True when `evidence` occurs in `page_text` after normalisation, tolerating line-end hyphens."""
    e, p = normalise(evidence), normalise(page_text)
    return e in p or _dehyphenate(e) in _dehyphenate(p)


# ----------------------------------------------------------------------------- checks

def check_questions(questions: list) -> list[str]:
    """Structural problems with questions.json (empty list when fine)."""
    problems: list[str] = []
    if not isinstance(questions, list) or not questions:
        return ["questions.json must be a non-empty list"]
    seen: set[str] = set()
    for i, q in enumerate(questions, 1):
        where = f"question #{i} ({q.get('no', '?') if isinstance(q, dict) else '?'})"
        if not isinstance(q, dict):
            problems.append(f"{where}: not an object")
            continue
        for key in REQUIRED:
            if q.get(key) in (None, "", []):
                problems.append(f"{where}: missing {key!r}")
        no = str(q.get("no", ""))
        if no in seen:
            problems.append(f"{where}: number {no} appears twice")
        seen.add(no)
        if q.get("answer_type") not in ANSWER_TYPES:
            problems.append(f"{where}: answer_type {q.get('answer_type')!r} not one of {ANSWER_TYPES}")
        if "kind" in q and q["kind"] not in KINDS:
            problems.append(f"{where}: kind {q['kind']!r} not one of {KINDS}")
        for g in q.get("gold") or []:
            if not isinstance(g, dict) or not {"file", "page", "evidence"} <= set(g):
                problems.append(f"{where}: gold entry {g!r} needs file, page and evidence")
                continue
            if not isinstance(g["page"], int) or g["page"] < 1:
                problems.append(f"{where}: page {g['page']!r} is not a 1-based page index")
            if not 10 <= len(g["evidence"]) <= 200:
                problems.append(f"{where}: evidence of {len(g['evidence'])} characters (10-200 allowed): "
                                f"{g['evidence'][:60]!r}")
    return problems


def verify_evidence(questions: list[dict], pdf_dir: Path) -> list[str]:
    """Every evidence string must occur on its stated page; returns the failures."""
    import pymupdf

    pages: dict[str, list[str]] = {}
    failures: list[str] = []
    for q in questions:
        for g in q["gold"]:
            name = g["file"]
            if name not in pages:
                path = pdf_dir / name
                if not path.is_file():
                    failures.append(f"{q['no']}: PDF not found: {path}")
                    pages[name] = []
                    continue
                with pymupdf.open(path) as doc:
                    pages[name] = [page.get_text() for page in doc]
            texts = pages[name]
            if not texts:
                continue
            if not 1 <= g["page"] <= len(texts):
                failures.append(f"{q['no']}: {name} has {len(texts)} pages, not page {g['page']}")
            elif not occurs(g["evidence"], texts[g["page"] - 1]):
                failures.append(f"{q['no']}: not on {name} p.{g['page']}: {g['evidence']!r}")
    return failures


# ----------------------------------------------------------------------------- outputs

def gold_key(questions: list[dict]) -> str:
    """The answer key in exactly the shared BHP gold.json format (indent 2, UTF-8, no final newline)."""
    items = [{"no": q["no"], "question": q["question"], "gold_answer": q["gold_answer"],
              "answer_type": q["answer_type"],
              "gold": [{"file": g["file"], "page": g["page"], "evidence": g["evidence"]} for g in q["gold"]]}
             for q in questions]
    return json.dumps(items, indent=2, ensure_ascii=False)


def questionnaire_bytes(questions: list[dict], title: str = TITLE, header: list[str] = HEADER,
                        dropdown: str = DROPDOWN, instructions: list = INSTRUCTIONS) -> bytes:
    """The questionnaire workbook; `title`, `header`, `dropdown`, `instructions`: in another language
    (translate_devset.py)."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
    from openpyxl.worksheet.datavalidation import DataValidation

    thin = Side(style="thin", color="FFBFBFBF")
    border = Border(left=thin, right=thin, top=thin, bottom=thin)
    head_fill = PatternFill("solid", fgColor="FF1F4E78")
    section_fill = PatternFill("solid", fgColor="FFDDEBF7")
    answer_fill = PatternFill("solid", fgColor="FFFFF2CC")
    top_wrap = Alignment(vertical="top", wrap_text=True)

    wb = Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws["A1"] = title
    ws["A1"].font = Font(bold=True, size=14, color="FF1F4E78")
    ws.merge_cells("A1:G1")
    ws.row_dimensions[1].height = 24
    for col, label in enumerate(header, 1):
        cell = ws.cell(row=3, column=col, value=label)
        cell.font = Font(bold=True, color="FFFFFFFF")
        cell.fill = head_fill
        cell.alignment = Alignment(vertical="center", wrap_text=True)
        cell.border = border
    ws.row_dimensions[3].height = 20

    dv = DataValidation(type="list", formula1=dropdown, allow_blank=True)
    dv.error, dv.errorTitle = "Choose Yes, No, Partially or Not disclosed.", "Answer"
    ws.add_data_validation(dv)

    row, section = 4, None
    for q in questions:
        if q["section"] != section:
            section = q["section"]
            for col in range(1, 8):
                cell = ws.cell(row=row, column=col)
                cell.fill = section_fill
                cell.border = border
            ws.cell(row=row, column=2, value=section).font = Font(bold=True)
            row += 1
        values = [q["no"], q["section"], q["question"], q["form_of_answer"], q.get("explanation") or None,
                  None, None]
        for col, value in enumerate(values, 1):
            cell = ws.cell(row=row, column=col, value=value)
            cell.border = border
            cell.alignment = Alignment(horizontal="center", vertical="top") if col == 1 else top_wrap
            if col >= 6:
                cell.fill = answer_fill
        if q["answer_type"] == "yesno":
            dv.add(f"F{row}")
        row += 1

    for col, width in WIDTHS.items():
        ws.column_dimensions[col].width = width
    ws.freeze_panes = "A4"
    ws.auto_filter.ref = f"A3:G{row - 1}"
    ws.print_title_rows = "3:3"

    ins = wb.create_sheet("Instructions")
    for r, text in enumerate(instructions, 1):
        if text is None:
            continue
        cell = ins.cell(row=r, column=1, value=text)
        cell.alignment = Alignment(wrap_text=True)
        cell.font = Font(bold=True, size=13) if r == 1 else Font(size=11)
    ins.column_dimensions["A"].width = 110.0

    wb.properties.creator = "autofill devset builder"
    wb.properties.created = FIXED_TIME
    wb.properties.modified = FIXED_TIME
    buf = io.BytesIO()
    wb.save(buf)
    return _fix_zip_times(buf.getvalue())


def _fix_zip_times(data: bytes) -> bytes:
    """Rewrite the xlsx zip with fixed entry dates (and a fixed modified date in docProps/core.xml,
    which openpyxl stamps with the current time), so the file is byte-for-byte reproducible."""
    stamp = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ")
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(<)",
                              lambda m: m.group(1) + stamp.encode() + m.group(2), body)
            entry = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME.timetuple()[:6])
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            dst.writestr(entry, body)
    return out.getvalue()


# ----------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="devset folder holding questions.json")
    ap.add_argument("--pdfs", type=Path, required=True, help="folder holding the PDFs named in the gold")
    args = ap.parse_args(argv)

    source = args.folder / "questions.json"
    try:
        questions = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"cannot read {source}: {exc}", file=sys.stderr)
        return 1
    problems = check_questions(questions) or verify_evidence(questions, args.pdfs)
    if problems:
        print(f"{len(problems)} problem(s) in {source}:", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1

    (args.folder / "gold.json").write_text(gold_key(questions), encoding="utf-8")
    (args.folder / "questionnaire.xlsx").write_bytes(questionnaire_bytes(questions))
    n_gold = sum(len(q["gold"]) for q in questions)
    kinds: dict[str, int] = {}
    for q in questions:
        kinds[q.get("kind", "-")] = kinds.get(q.get("kind", "-"), 0) + 1
    print(f"{len(questions)} questions, {n_gold} evidence strings verified "
          f"({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
          f"wrote {args.folder / 'questionnaire.xlsx'} and {args.folder / 'gold.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
