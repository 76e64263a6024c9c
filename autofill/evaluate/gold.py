"""Gold answer keys: what the right answer is and on which pages its evidence lies.

Two formats, both with 1-based PDF page indices (not the numbers printed on the pages):

* `.json`: a list (or `{"questions": [...]}`) of
  `{"no", "question", "gold_answer", "answer_type", "gold": [{"file", "page", "evidence"}]}`.
* `.xlsx`: the first sheet with a header row holding `Question` and/or `No.`, plus `Gold answer`,
  `Gold pages` (`FILE p. N; FILE p. M`), optional `Gold evidence` (one per line or separated by ` | `,
  each optionally prefixed `[FILE p. N]`) and `Answer type` (`yesno`, `number`, `text`).

Gold items are matched to questionnaire rows by question number, falling back to the normalised
question text, so a key keeps working when rows move or a questionnaire has no number column.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Protocol, Sequence, TypeVar

from autofill.errors import InputError
from autofill.fileio import missing

ANSWER_TYPES = ("yesno", "number", "text")
_TYPE_ALIASES = {
    "yesno": "yesno", "yes/no": "yesno", "yes_no": "yesno", "boolean": "yesno", "bool": "yesno",
    "number": "number", "numeric": "number", "numerical": "number", "quantity": "number",
    "text": "text", "list": "text", "free text": "text", "string": "text", "": "",
}
# "BHP Report.pdf p. 8", "BHP Report.pdf p.8", "Report.pdf, page 8", "Report.pdf pp. 8-9"
_PAGE_REF = re.compile(r"^\s*(?P<file>.+?)[\s,]*\b(?:pp?\.|pages?)\s*(?P<start>\d+)(?:\s*[-–]\s*(?P<end>\d+))?\s*$",
                       re.IGNORECASE)
_EVIDENCE_PREFIX = re.compile(r"^\s*\[(?P<ref>[^\]]+?)\]\s*(?P<text>.*)$", re.DOTALL)


class NumberedRow(Protocol):
    """A questionnaire row as matching needs it: records.QuestionRow or a row read from an output."""

    number: str
    question: str

    @property
    def key(self) -> str: ...


R = TypeVar("R", bound=NumberedRow)


@dataclass(frozen=True)
class GoldPage:
    file: str
    page: int

    def label(self) -> str:
        return f"{self.file} p. {self.page}"


@dataclass(frozen=True)
class GoldEvidence:
    text: str
    file: str = ""  # empty when the key gives evidence without its page
    page: int = 0


@dataclass
class GoldItem:
    number: str  # normalised question number ("1", "2.3"), "" when the key has none
    question: str
    answer: str
    answer_type: str  # "yesno", "number" or "text"
    pages: list[GoldPage] = field(default_factory=list)  # distinct, in the key's order
    evidence: list[GoldEvidence] = field(default_factory=list)


@dataclass
class GoldKey:
    path: Path
    items: list[GoldItem]

    def match(self, rows: Sequence[R]) -> tuple[list[tuple[R, GoldItem]], list[GoldItem]]:
        """Pair questionnaire rows with gold items: by number first (a number shared by several rows,
        e.g. on several sheets, is settled by the question text), then by normalised text. Returns the
        pairs in questionnaire order and the gold items no row matched."""
        by_number: dict[str, list[R]] = {}
        by_text: dict[str, list[R]] = {}
        for row in rows:
            if normalise_number(row.number):
                by_number.setdefault(normalise_number(row.number), []).append(row)
            by_text.setdefault(normalise_question(row.question), []).append(row)
        used: set[str] = set()
        paired: dict[str, GoldItem] = {}
        unmatched: list[GoldItem] = []

        def take(candidates: list[R], item: GoldItem) -> bool:
            free = [r for r in candidates if r.key not in used]
            if len(free) > 1 and item.question:
                same_text = [r for r in free if normalise_question(r.question) == normalise_question(item.question)]
                free = same_text or free
            if not free:
                return False
            used.add(free[0].key)
            paired[free[0].key] = item
            return True

        for item in self.items:
            exact = [r for r in by_text.get(normalise_question(item.question), []) if r.key not in used]
            numbered = [r for r in by_number.get(item.number, []) if r.key not in used] if item.number else []
            if numbered and exact and not any(r in exact for r in numbered) and \
                    all(_overlap(r.question, item.question) < 0.5 for r in numbered):
                numbered = []  # the number points at another question, the exact text is elsewhere: renumbered
            if numbered and take(numbered, item):
                continue
            if item.question and take(by_text.get(normalise_question(item.question), []), item):
                continue
            unmatched.append(item)
        pairs = [(row, paired[row.key]) for row in rows if row.key in paired]
        return pairs, unmatched


# --------------------------------------------------------------------------- normalisation (pure)


def normalise_number(value: Any) -> str:
    """"1", "1.", "Q1", "1.0" (a float from Excel) and " 01 " all become "1"; "2.3" stays "2.3"."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip().lower()
    text = re.sub(r"^(?:q|no\.?|question|#)\s*", "", text).strip().rstrip(".):")
    if re.fullmatch(r"\d+\.0", text):
        text = text[:-2]
    parts = text.split(".")
    if all(p.isdigit() for p in parts if p) and text:
        return ".".join(str(int(p)) for p in parts if p)
    return text


def normalise_question(text: str) -> str:
    """Case, accents, quotes, punctuation and spacing do not make two questions different."""
    text = unicodedata.normalize("NFKD", str(text or ""))
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return " ".join(re.findall(r"[a-z0-9]+", text))


def _overlap(a: str, b: str) -> float:
    wa, wb = set(normalise_question(a).split()), set(normalise_question(b).split())
    return len(wa & wb) / len(wa | wb) if wa or wb else 1.0


def normalise_type(value: Any, where: str) -> str:
    key = str(value or "").strip().lower()
    if key not in _TYPE_ALIASES:
        raise InputError(f"{where}: unknown answer type {value!r} (yesno, number, text)")
    return _TYPE_ALIASES[key]


def parse_page_ref(text: str, where: str) -> list[GoldPage]:
    """"FILE p. 8" -> [GoldPage(FILE, 8)]; "FILE pp. 8-9" -> pages 8 and 9."""
    m = _PAGE_REF.match(text)
    if not m:
        raise InputError(f"{where}: cannot read page reference {text.strip()!r} (expected 'FILE p. N')")
    start = int(m["start"])
    end = int(m["end"]) if m["end"] else start
    if start < 1 or end < start:
        raise InputError(f"{where}: bad page number in {text.strip()!r} (pages are 1-based)")
    return [GoldPage(m["file"].strip(), p) for p in range(start, end + 1)]


def parse_pages(text: Any, where: str) -> list[GoldPage]:
    """`FILE p. N; FILE p. M` (also newline-separated) -> distinct pages in order."""
    pages: list[GoldPage] = []
    for part in re.split(r"[;\n]+", str(text or "")):
        if part.strip():
            pages.extend(parse_page_ref(part, where))
    return _distinct(pages)


def parse_evidence(text: Any, where: str) -> list[GoldEvidence]:
    """Evidence cell: one item per line (or separated by ` | `), each optionally `[FILE p. N] text`."""
    items: list[GoldEvidence] = []
    for part in re.split(r"\n+|\s\|\s", str(text or "")):
        part = part.strip()
        if not part:
            continue
        m = _EVIDENCE_PREFIX.match(part)
        if m and _PAGE_REF.match(m["ref"]):
            ref = parse_page_ref(m["ref"], where)[0]
            if m["text"].strip():
                items.append(GoldEvidence(m["text"].strip(), ref.file, ref.page))
        else:
            items.append(GoldEvidence(part))
    return items


def _distinct(pages: Iterable[GoldPage]) -> list[GoldPage]:
    seen: set[GoldPage] = set()
    out = []
    for p in pages:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


# --------------------------------------------------------------------------- loading (I/O)


def load_gold(path: Path | str) -> GoldKey:
    """Read a gold key (.json or .xlsx); a malformed key is an InputError naming the item."""
    path = Path(path)
    if not path.is_file():
        raise missing("gold key", path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        items = _load_json(path)
    elif suffix in (".xlsx", ".xlsm"):
        items = _load_xlsx(path)
    else:
        raise InputError(f"gold key {path.name}: expected a .json or .xlsx file")
    if not items:
        raise InputError(f"gold key {path.name} has no questions")
    seen: set[str] = set()
    for item in items:
        if item.number and item.number in seen:
            raise InputError(f"gold key {path.name}: question number {item.number} appears twice")
        seen.add(item.number)
    return GoldKey(path, items)


def _load_json(path: Path) -> list[GoldItem]:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"gold key {path.name} is not valid JSON: {exc}") from None
    if isinstance(data, dict):
        data = data.get("questions", data.get("items"))
    if not isinstance(data, list):
        raise InputError(f"gold key {path.name}: expected a list of questions")
    return [_json_item(entry, f"gold key {path.name} item {i}") for i, entry in enumerate(data, 1)]


def _json_item(entry: Any, where: str) -> GoldItem:
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected an object")
    number = normalise_number(entry.get("no", entry.get("number", entry.get("id"))))
    question = str(entry.get("question") or "").strip()
    if not number and not question:
        raise InputError(f"{where}: needs a question number ('no') or the question text")
    where = f"{where} (question {number or question[:40]!r})"
    pages: list[GoldPage] = []
    evidence: list[GoldEvidence] = []
    gold = entry.get("gold", [])
    if not isinstance(gold, list):
        raise InputError(f"{where}: 'gold' must be a list of {{file, page, evidence}}")
    for g in gold:
        if not isinstance(g, dict) or not str(g.get("file") or "").strip():
            raise InputError(f"{where}: each gold entry needs a 'file'")
        try:
            page = int(g.get("page"))
        except (TypeError, ValueError):
            raise InputError(f"{where}: gold page {g.get('page')!r} is not a page number") from None
        if page < 1:
            raise InputError(f"{where}: gold page {page} (pages are 1-based)")
        file = str(g["file"]).strip()
        pages.append(GoldPage(file, page))
        if str(g.get("evidence") or "").strip():
            evidence.append(GoldEvidence(str(g["evidence"]).strip(), file, page))
    if "pages" in entry:  # "FILE p. N; ..." as in the xlsx
        pages.extend(parse_pages(entry["pages"], where))
    answer = str(entry.get("gold_answer", entry.get("answer", "")) or "").strip()
    answer_type = normalise_type(entry.get("answer_type", entry.get("type", "")), where) or infer_type(answer)
    return GoldItem(number, question, answer, answer_type, _distinct(pages), evidence)


_XLSX_COLUMNS = {
    "number": ("no.", "no", "number", "#", "id", "question no.", "question number"),
    "question": ("question",),
    "answer": ("gold answer", "answer", "expected answer"),
    "pages": ("gold pages", "pages", "gold page"),
    "evidence": ("gold evidence", "evidence"),
    "type": ("answer type", "type"),
}


def _load_xlsx(path: Path) -> list[GoldItem]:
    import openpyxl

    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many types for a bad file
        raise InputError(f"gold key {path.name} is not a readable .xlsx file: {exc}") from None
    try:
        ws = wb.worksheets[0]
        rows = [list(r) for r in ws.iter_rows(values_only=True)]
    finally:
        wb.close()
    header_at, columns = _find_header(rows)
    if header_at is None:
        raise InputError(f"gold key {path.name}: no header row with 'Question' (or 'No.') and 'Gold pages'/'Gold answer'")
    items = []
    for offset, row in enumerate(rows[header_at + 1:], start=header_at + 2):
        def cell(name: str) -> Any:
            i = columns.get(name)
            return row[i] if i is not None and i < len(row) else None

        if all(v is None or str(v).strip() == "" for v in row):
            continue
        where = f"gold key {path.name} row {offset}"
        number = normalise_number(cell("number"))
        question = str(cell("question") or "").strip()
        if not number and not question:
            raise InputError(f"{where}: needs a question number or the question text")
        answer = str(cell("answer") or "").strip()
        evidence = parse_evidence(cell("evidence"), where)
        pages = parse_pages(cell("pages"), where)
        answer_type = normalise_type(cell("type"), where) or infer_type(answer)
        items.append(GoldItem(number, question, answer, answer_type, pages, evidence))
    return items


def _find_header(rows: list[list[Any]]) -> tuple[int | None, dict[str, int]]:
    for i, row in enumerate(rows[:30]):
        names = [str(v).strip().lower() if v is not None else "" for v in row]
        columns: dict[str, int] = {}
        for key, aliases in _XLSX_COLUMNS.items():
            for alias in aliases:
                if alias in names:
                    columns[key] = names.index(alias)
                    break
        if ("question" in columns or "number" in columns) and ("pages" in columns or "answer" in columns):
            return i, columns
    return None, {}


def infer_type(answer: str) -> str:
    """Without an answer type, a gold answer that opens with a verdict is a yes/no question."""
    return "yesno" if parse_verdict(answer) else "text"


# --------------------------------------------------------------------------- yes/no verdicts

_VERDICTS = [
    ("not disclosed", r"not (?:publicly )?(?:disclosed|reported|stated|mentioned|found|available|specified)"
                      r"|no (?:information|data|disclosure|evidence)|unknown|undisclosed|n/?a\b"
                      r"|cannot be determined|insufficient (?:information|evidence)"),
    ("partially", r"partially|partly|partial|in part"),
    ("yes", r"yes"),
    ("no", r"no"),
]
_LEAD_JUNK = re.compile(r"^[\s*_#>\"'`“”‘’\-–•:(\[]*")
_LABEL = re.compile(r"^(?:answer|verdict|response|draft answer|short answer)\s*[:\-–]\s*", re.IGNORECASE)


def parse_verdict(text: str) -> frozenset[str]:
    """The leading verdict of an answer: a set drawn from yes, no, partially, not disclosed; empty
    when the answer does not open with one. "No / not disclosed" gives {no, not disclosed};
    "**Yes** - ..." and "Answer: Yes." give {yes}; "Not disclosed." gives {not disclosed}."""
    text = unicodedata.normalize("NFKC", str(text or "")).strip()
    text = _LEAD_JUNK.sub("", text)
    text = _LABEL.sub("", text)
    text = _LEAD_JUNK.sub("", text).lower()
    found: list[str] = []
    while True:
        for name, pattern in _VERDICTS:
            m = re.match(rf"(?:{pattern})(?![a-z])", text)
            if m:
                found.append(name)
                text = text[m.end():]
                break
        else:
            break
        joiner = re.match(r"^[\s*_]*(?:/|or(?![a-z])|\()[\s*_]*", text)  # "No / not disclosed", "No (not disclosed)"
        if not joiner:
            break
        text = text[joiner.end():]
    if {"yes", "no"} <= set(found):
        return frozenset()  # "Yes/No" is a template echoed back, not a verdict
    return frozenset(found)
