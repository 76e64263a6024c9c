"""A filled autofill output workbook and the PDF it cites, built from scratch for the review report
tests (no other stage of the pipeline is involved)."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pymupdf

PDF_NAME = "Acme Climate Report 2024.pdf"
PAGE_TEXTS = [
    "Introduction. Acme Metals produces copper and nickel at four sites across two continents. "
    "This report follows the recommendations of the Task Force on Climate-related Financial Disclosures.",
    # Page 2 holds the cited passage; its first sentence is what the highlight must cover.
    "Targets. Acme Metals commits to net zero operational greenhouse gas emissions by 2050 across all "
    "operated assets. Our medium-term target is a thirty percent reduction in Scope 1 and 2 emissions "
    "by 2030 from a 2020 baseline, approved by the Board in March 2021.",
    "Governance. The Sustainability Committee of the Board meets four times a year and reviews climate "
    "risk, capital allocation and progress against the emissions targets set out in this report.",
]
CITED_TEXT = ("Acme Metals commits to net zero operational greenhouse gas emissions by 2050 across all "
              "operated assets. Our medium-term target is a thirty percent reduction in Scope 1 and 2 "
              "emissions by 2030 from a 2020 baseline.")
HOSTILE_TEXT = "Governance notes <script>alert('pwned')</script> & <b>bold</b> claims"
QUESTION_1 = "Does the company have a net zero target?"
ANSWER_1 = "Yes. Net zero operational emissions by 2050 (Acme Climate Report 2024 p. 2)."
QUESTION_2 = "How often does the board review climate risk?"
QUESTION_3 = "Does the company disclose water withdrawals?"
EVIDENCE_ONLY = "Evidence only (no LLM configured)"


def make_report_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    for text in PAGE_TEXTS:
        page = doc.new_page(width=595, height=842)
        page.insert_textbox(pymupdf.Rect(72, 90, 523, 500), text, fontsize=12)
        # A large page-specific footer, far from the passages: tells rendered pages apart.
        n = doc.page_count
        page.insert_text((72, 760), f"Acme report page {n}", fontsize=30)
        page.draw_rect(pymupdf.Rect(72 + 120 * (n - 1), 780, 172 + 120 * (n - 1), 820), color=None, fill=(0.2, 0.3, 0.5))
    doc.save(str(path))
    doc.close()
    return path


HEADER = ["No.", "Section", "Question", "Form of answer", "Answer", "Reasoning", "Sources", "Confidence",
          "Status", "Review", "Reviewer comment"]


def make_output_workbook(path: Path, pdf_name: str = PDF_NAME, run_info: dict | None = None,
                         evidence_sheet_column: bool = False, cited_column: bool = True) -> Path:
    """The documented output format: title row, header on row 3, a section row, three question rows
    (answered, evidence only, failed), an Evidence sheet and a Run info sheet."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws.append(["Customer sustainability questionnaire"])
    ws.append([])
    ws.append(HEADER)
    ws.append([None, "Targets and commitments"])  # row 4: section heading, not a question
    ws.append(["1", "Targets", QUESTION_1, "Yes/No", ANSWER_1,
               "Step 1: page 2 states a net zero commitment for 2050.", f"{pdf_name} p. 2", "high", "Answered",
               "Approved", "Checked against p. 2"])
    ws.append(["2", "Governance", QUESTION_2, "Short text", f"\"{HOSTILE_TEXT}\" ({pdf_name} p. 3)", "",
               f"{pdf_name} p. 3", "low", EVIDENCE_ONLY, None, None])
    ws.append(["3", "Water", QUESTION_3, "Yes/No", None, None, None, None, "failed: rate limited", "Needs changes",
               "Look in the water section"])

    ev = wb.create_sheet("Evidence")
    cols = (["Sheet"] if evidence_sheet_column else []) + ["Row", "Question", "Rank", "File", "Page"]
    cols += (["Cited"] if cited_column else []) + ["Score", "Text"]
    ev.append(cols)

    def evidence(row, question, rank, page, cited, score, text):
        values = (["Questionnaire"] if evidence_sheet_column else []) + [row, question, rank, pdf_name, page]
        values += ([cited] if cited_column else []) + [score, text]
        ev.append(values)

    evidence(5, QUESTION_1, 1, 2, "yes", 0.91, CITED_TEXT)
    evidence(5, QUESTION_1, 2, 1, "no", 0.55, PAGE_TEXTS[0])
    evidence(6, QUESTION_2, 1, 3, "yes", 0.77, HOSTILE_TEXT + "\n" + PAGE_TEXTS[2])

    info = wb.create_sheet("Run info")
    info.append(["Key", "Value"])
    defaults = {"company": "Acme", "llm model": "gpt-4o-mini", "embedder": "local all-MiniLM-L6-v2",
                "cost_usd": "0.0123", "started": "2026-11-22T05:00:00Z"}
    for k, v in {**defaults, **(run_info or {})}.items():
        info.append([k, v if isinstance(v, str) else json.dumps(v)])
    wb.save(path)
    return path
