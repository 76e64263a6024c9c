"""`autofill eval` on a form (issue 45): a gold key per datapoint (named range) with its value and the
pages its evidence lies on, scored against a filled form's Evidence sheet.

Gold key (JSON), see docs/EVALUATION.md:

    {"datapoints": [{"key": "GrossScope1GreenhouseGasEmissions", "value": 1250,
                     "pages": ["Acme report 2024.pdf p. 2"], "tolerance": 0.01}, ...]}

Per datapoint: the value the run wrote (or, not written, the value waiting in the Evidence sheet; for an
evidence-only draft its first candidate) is compared with the gold value by the datapoint's kind as the
form reader gives it: numbers and percentages within a relative tolerance (`tolerance`, else
`eval.number_tolerance`), booleans, enumerations, years and dates exactly; free text is not scored here
(the judge scores text). Its evidence (the passages of its Evidence rows, candidates left out) gets the
page metrics of metrics.page_metrics (hit@k, recall@k, precision@k, MRR, nDCG@k).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from autofill.errors import InputError
from autofill.evaluate import metrics as m
from autofill.evaluate.gold import GoldPage, parse_page_ref
from autofill.evaluate.results import ConfigEval, QuestionEval

NUMERIC = ("number", "percent")
EXACT = ("boolean", "enumeration", "year", "date", "date_parts")


@dataclass
class FormGoldItem:
    key: str  # the datapoint's named range
    value: Any  # None: no gold value (pages only)
    pages: list[GoldPage] = field(default_factory=list)
    tolerance: float | None = None  # relative, for numbers; None: eval.number_tolerance


def is_form_gold(path: Path | str) -> bool:
    """A JSON key with a `datapoints` list (a form's key), as opposed to a questionnaire's."""
    path = Path(path)
    if path.suffix.lower() != ".json" or not path.is_file():
        return False
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(data, dict) and isinstance(data.get("datapoints"), list)


def load_form_gold(path: Path | str, form: Any) -> list[FormGoldItem]:
    """Read a form's gold key; each key must name a datapoint of `form` (InputError naming it otherwise)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"gold key {path.name} is not valid JSON: {exc}") from None
    entries = data.get("datapoints") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise InputError(f"gold key {path.name}: a form's key needs a non-empty 'datapoints' list "
                         "of {key, value, pages}")
    items: list[FormGoldItem] = []
    for i, entry in enumerate(entries, 1):
        where = f"gold key {path.name} datapoint {i}"
        if not isinstance(entry, dict) or not str(entry.get("key") or "").strip():
            raise InputError(f"{where}: expected an object with 'key' (the datapoint's named range)")
        key = str(entry["key"]).strip()
        if form.datapoint(key) is None:
            raise InputError(f"{where}: {key!r} is not a datapoint of {Path(form.path).name}; use its named range "
                             "as `autofill inspect` shows it")
        if any(it.key == key for it in items):
            raise InputError(f"{where}: {key!r} appears twice")
        pages: list[GoldPage] = []
        for ref in entry.get("pages") or []:
            if isinstance(ref, dict):
                try:
                    pages.append(GoldPage(str(ref["file"]), int(ref["page"])))
                except (KeyError, TypeError, ValueError):
                    raise InputError(f"{where} ({key}): a page needs 'file' and a 1-based 'page'") from None
            else:
                pages.extend(parse_page_ref(str(ref), f"{where} ({key})"))
        tolerance = entry.get("tolerance")
        if tolerance is not None and (not isinstance(tolerance, (int, float)) or tolerance < 0):
            raise InputError(f"{where} ({key}): 'tolerance' must be a relative tolerance of 0 or more (0.01 = 1%)")
        items.append(FormGoldItem(key, entry.get("value"), list(dict.fromkeys(pages)), tolerance))
    return items


# --------------------------------------------------------------------------- comparing typed values


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value or "").strip().replace(",", "").replace("\u2212", "-").rstrip("%").strip()
    try:
        return float(text)
    except ValueError:
        return None


def _boolean(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value if value is not None else "").strip().lower()
    return {"yes": True, "true": True, "1": True, "no": False, "false": False, "0": False}.get(text)


def _date(value: Any) -> str:
    if isinstance(value, (datetime, date)):
        return value.strftime("%Y-%m-%d")
    return str(value or "").strip()[:10]


def value_matches(kind: str, got: Any, gold: Any, tolerance: float) -> bool | None:
    """Whether `got` is the gold value for a datapoint of `kind` (a forms.model.DatapointKind value);
    None when it is not scored (free text, or no gold value)."""
    if gold is None or kind not in NUMERIC + EXACT:
        return None
    if got is None or (isinstance(got, str) and not got.strip()):
        return False
    if kind in NUMERIC:
        a, g = _number(got), _number(gold)
        if a is None or g is None:
            return False
        return a == g if g == 0 else abs(a - g) <= tolerance * abs(g)
    if kind == "boolean":
        a, g = _boolean(got), _boolean(gold)
        return a is not None and a == g
    if kind == "year":
        a, g = _number(got), _number(gold)
        return a is not None and a == g
    if kind in ("date", "date_parts"):
        return _date(got) == _date(gold)
    return " ".join(str(got).split()).casefold() == " ".join(str(gold).split()).casefold()


# --------------------------------------------------------------------------- reading a filled form


@dataclass
class FilledDatapoint:
    status: str = ""
    value: Any = None
    source: str = ""  # "value" (written or waiting), "candidate" (an evidence-only draft's first), ""
    passages: list[m.RetrievedPassage] = field(default_factory=list)


def read_filled_form(output: Path) -> dict[str, FilledDatapoint]:
    """Per named range, what the filled form's Evidence sheet (forms/run.write_form) holds."""
    import openpyxl

    wb = openpyxl.load_workbook(output, read_only=True, data_only=True)
    try:
        if "Evidence" not in wb.sheetnames:
            raise InputError(f"{Path(output).name} has no Evidence sheet: score an output `autofill run` wrote "
                             "for the form")
        rows = wb["Evidence"].iter_rows(values_only=True)
        head = [str(h or "") for h in next(rows, ())]
        at = {h: i for i, h in enumerate(head)}
        if "Named range" not in at:
            raise InputError(f"{Path(output).name}: its Evidence sheet is not a form's (no 'Named range' column)")
        out: dict[str, FilledDatapoint] = {}

        def get(row: tuple, name: str) -> Any:
            return row[at[name]] if name in at and at[name] < len(row) else None

        for row in rows:
            key = str(get(row, "Named range") or "")
            if not key:
                continue
            point = out.setdefault(key, FilledDatapoint(status=str(get(row, "Status") or "")))
            value, rank = get(row, "Value"), get(row, "Rank")
            if rank == "candidate":
                if point.source == "" and value not in (None, ""):
                    point.value, point.source = value, "candidate"
                continue
            if value not in (None, "") and point.source != "value":
                point.value, point.source = value, "value"
            page = _int(get(row, "Page"))
            if get(row, "File") and page:
                score = get(row, "Score")
                point.passages.append(m.RetrievedPassage(_int(rank) or len(point.passages) + 1, str(get(row, "File")),
                                                         (page,), str(get(row, "Text") or ""),
                                                         get(row, "Cited") == "yes",
                                                         float(score) if isinstance(score, (int, float)) else None))
        return out
    finally:
        wb.close()


def _shown(value: Any) -> str:
    """A value as the per-question table shows it: 1250, not 1250.0."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _int(value: Any) -> int:
    found = re.match(r"\s*(\d+)", str(value if value is not None else ""))
    return int(found.group(1)) if found else 0


def score_form_output(settings: Any, form: Any, items: list[FormGoldItem], output: Path, k: int, name: str):
    """A ConfigEval of `output` (a filled copy of `form`) against the form's gold `items`."""
    filled = read_filled_form(Path(output))
    questions, unmatched, notes = [], [], []
    seen_files = {m.file_key(p.file) for f in filled.values() for p in f.passages}
    for item in items:
        dp = form.datapoint(item.key)
        got = filled.get(item.key)
        if got is None:
            unmatched.append(item.key)
            continue
        kind = dp.kind.value
        cell = dp.cells[0] if dp.cells else None
        q = QuestionEval(cell.sheet if cell else "", dp.row or 0, item.key, dp.label, kind,
                         answer=_shown(got.value), status=got.status,
                         gold_pages=len(item.pages), retrieved=len(got.passages))
        pm = m.page_metrics(got.passages, item.pages, k)
        if pm is not None:
            q.hit_at_k, q.recall_at_k, q.precision_at_k, q.mrr, q.ndcg_at_k = pm.hit, pm.recall, pm.precision, pm.mrr, pm.ndcg
        tolerance = item.tolerance if item.tolerance is not None else settings.eval.number_tolerance
        matched = value_matches(kind, got.value, item.value, tolerance)
        if matched is not None:
            q.value_accuracy = float(matched)
            if kind in NUMERIC:
                q.number_accuracy = float(matched)
            elif kind == "boolean":
                q.yesno_accuracy = float(matched)
                verdict = _boolean(got.value)
                q.verdict = "" if verdict is None else ("yes" if verdict else "no")
        questions.append(q)
    for gold_file in sorted({p.file for it in items for p in it.pages}):
        if seen_files and m.file_key(gold_file) not in seen_files:
            notes.append(f"gold file {gold_file!r} never appears in the Evidence sheet; check its name in the key")
    if not questions:
        notes.append("no datapoint of the output matched a gold key")
    return ConfigEval(name, Path(output), questions, unmatched_gold=unmatched, notes=notes)
