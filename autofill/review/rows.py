"""The rows the review reads from a filled workbook, as records (bottom of review/): a question row or a
form's datapoint (ReviewQuestion) and a passage of its Evidence (EvidenceRow), with the cell readers both
review/reader.py and review/form_rows.py use."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from autofill.states import Outcome, parse_status
from autofill.workbook.hyperlinks import parse_sources


@dataclass
class EvidenceRow:
    sheet: str
    row: int
    question: str
    rank: int
    file_name: str
    page_start: int
    page_end: int
    cited: bool
    score: str
    text: str
    printed: str = ""  # the number(s) printed on the page(s), when they differ from the PDF index
    ocr: bool = False  # some of the passage was read by OCR

    @property
    def pages(self) -> list[int]:
        return list(range(self.page_start, self.page_end + 1)) if self.page_start else []


@dataclass
class ReviewQuestion:
    sheet: str
    row: int
    question: str
    number: str = ""
    section: str = ""
    answer: str = ""
    reasoning: str = ""
    sources: str = ""
    confidence: str = ""
    status: str = ""
    review: str = ""
    reviewer_comment: str = ""
    tier: str = ""  # Ready / Check / Needs work (trust checks), "" in outputs from before them
    checks: str = ""  # failed checks in words, "; "-separated
    datapoints: str = ""  # the Framework datapoints cell (autofill/frameworks): one datapoint a line
    evidence: list[EvidenceRow] = field(default_factory=list)
    in_sheet: bool = True  # False: known only from the Evidence sheet
    # A form's datapoint (issue 45; "" for a question row): its input cell ("D5"), named range, unit,
    # and the value its run left waiting for approval (not in the cell).
    cell: str = ""
    named: str = ""
    unit: str = ""
    waiting: str = ""
    kind: str = ""  # the datapoint's forms.model.DatapointKind value, set by the review app

    @property
    def key(self) -> str:
        return f"{self.sheet}!{self.cell or self.row}"

    @property
    def is_draft(self) -> bool:
        """An evidence-only draft: quotes in Reasoning, no answer (states.parse_status)."""
        return parse_status(self.status) is Outcome.DRAFTED

    @property
    def scored_answer(self) -> str:
        """The text an evaluation scores: the Answer, or for an evidence-only draft (whose Answer cell
        stays empty) the quotes it put in front of the reviewer."""
        return self.reasoning if self.is_draft and not self.answer else self.answer

    @property
    def cited_sources(self) -> list[tuple[str, int]]:
        """(file, page) pairs from the Sources cell, in the order written (most relevant first)."""
        return parse_sources(self.sources)


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _int(value, default: int = 0) -> int:
    m = re.search(r"\d+", _text(value))
    return int(m.group()) if m else default


def _pages(value) -> tuple[int, int]:
    """`12`, `12.0`, `12-13`, `pp. 12–13` -> (start, end)."""
    nums = [int(n) for n in re.findall(r"\d+", _text(value))]
    if not nums:
        return 0, 0
    start = nums[0]
    end = nums[1] if len(nums) > 1 and nums[1] >= start else start
    return start, end
