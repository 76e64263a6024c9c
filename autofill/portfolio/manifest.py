"""The portfolio manifest: one entry per company with its reports and its questionnaire.

Three formats, the same columns (case and spaces in headers do not matter):

    company | reports | questionnaire | output (optional) | year (optional)

- `.csv` (UTF-8, with or without BOM; `,` or `;` separated),
- `.xlsx` (the first sheet; the header row is the first row naming `company`),
- `.toml` (`[[company]]` tables with those keys; `reports` may also be a list).

`reports` is a folder, a glob (`reports/acme/*.pdf`) or files separated by `;`. Relative paths are
relative to the manifest's folder. Every bad entry is reported, one line each, in one InputError, so
a 200-company manifest is fixed in one pass instead of one error per attempt."""

from __future__ import annotations

import csv
import glob
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from autofill.errors import InputError
from autofill.workbook.safety import decode_csv
from autofill.settings import read_toml

COLUMNS = ("company", "reports", "questionnaire", "output", "year")
REQUIRED = ("company", "reports", "questionnaire")
QUESTIONNAIRE_SUFFIXES = (".xlsx", ".xlsm")
_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class CompanyEntry:
    company: str
    reports: tuple[Path, ...]  # PDF files and folders, as given (globs expanded)
    questionnaire: Path
    output: str = ""  # file name of the filled workbook ("" = the usual QUESTIONNAIRE_COMPANY_filled.xlsx)
    year: str = ""  # the reporting year the analyst expects; shown in the portfolio workbook
    where: str = ""  # "portfolio.csv line 4": for messages


def _key(header: Any) -> str:
    return re.sub(r"\s+", " ", str(header or "")).strip().lower()


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _records_csv(path: Path) -> list[tuple[int, dict[str, str]]]:
    text, _encoding = decode_csv(path.read_bytes(), path.name)  # UTF-8 (BOM or not), UTF-16, cp1252
    try:
        dialect = csv.Sniffer().sniff(text.splitlines()[0] if text.strip() else ",", delimiters=",;\t")
        delimiter = dialect.delimiter
    except csv.Error:
        delimiter = ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows = [(i, row) for i, row in enumerate(reader, start=1)]
    return _records_from_rows(rows)


def _records_xlsx(path: Path) -> list[tuple[int, dict[str, str]]]:
    import openpyxl

    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - zip, XML and format errors all mean "not a usable workbook"
        raise InputError(f"cannot read the portfolio workbook {path}: {type(exc).__name__}: {exc}") from None
    try:
        ws = wb.worksheets[0]
        rows = [(i, [_text(v) for v in row]) for i, row in enumerate(ws.iter_rows(values_only=True), start=1)]
    finally:
        wb.close()
    return _records_from_rows(rows)


def _records_from_rows(rows: list[tuple[int, list[str]]]) -> list[tuple[int, dict[str, str]]]:
    header_at = next((n for n, (_, row) in enumerate(rows) if "company" in [_key(c) for c in row]), None)
    if header_at is None:
        raise InputError("the portfolio has no header row with a `company` column "
                         "(columns: company, reports, questionnaire, optional output and year)")
    header = [_key(c) for c in rows[header_at][1]]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(f"the portfolio's header row lacks the column{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)} (found: {', '.join(h for h in header if h) or 'nothing'})")
    out = []
    for line, row in rows[header_at + 1:]:
        record = {h: _text(row[i]) if i < len(row) else "" for i, h in enumerate(header) if h in COLUMNS}
        if any(record.values()):
            out.append((line, record))
    return out


def _records_toml(path: Path) -> list[tuple[int, dict[str, str]]]:

    data = read_toml(path)
    entries = data.get("company", data.get("companies"))
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise InputError(f"{path.name}: expected [[company]] tables with company, reports and questionnaire")
    out = []
    for i, entry in enumerate(entries, start=1):
        record = {}
        for key, value in entry.items():
            k = _key(key)
            if k not in COLUMNS:
                record.setdefault("_unknown", []).append(str(key))  # type: ignore[arg-type]
                continue
            record[k] = ";".join(_text(v) for v in value) if isinstance(value, list) else _text(value)
        out.append((i, record))
    return out


def _expand_reports(spec: str, base: Path) -> tuple[list[Path], list[str]]:
    """The paths a `reports` cell names, and a problem per part that names nothing."""
    paths: list[Path] = []
    problems: list[str] = []
    for part in (p.strip() for p in spec.split(";")):
        if not part:
            continue
        p = Path(part).expanduser()
        p = p if p.is_absolute() else base / p
        if _GLOB_CHARS.search(part):
            found = sorted(Path(m) for m in glob.glob(str(p), recursive=True)
                           if Path(m).is_file() and m.lower().endswith(".pdf"))
            if not found:
                problems.append(f"reports pattern {part!r} matches no PDF file")
            paths.extend(found)
        elif p.is_dir():
            if not any(q.suffix.lower() == ".pdf" for q in p.rglob("*") if q.is_file()):
                problems.append(f"reports folder {part!r} holds no PDF file")
            paths.append(p)
        elif p.is_file():
            if p.suffix.lower() != ".pdf":
                problems.append(f"report {part!r} is not a .pdf file")
            paths.append(p)
        else:
            problems.append(f"report {part!r} does not exist")
    if not paths and not problems:
        problems.append("no reports given")
    return paths, problems


def _entry(record: dict[str, Any], base: Path, where: str) -> tuple[CompanyEntry | None, list[str]]:
    problems: list[str] = []
    unknown = record.pop("_unknown", None)
    if unknown:
        problems.append(f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
                        f"(keys: {', '.join(COLUMNS)})")
    company = record.get("company", "")
    if not company:
        problems.append("company is empty")
    reports, report_problems = _expand_reports(record.get("reports", ""), base)
    problems += report_problems
    q_text = record.get("questionnaire", "")
    questionnaire = Path(q_text).expanduser() if q_text else Path()
    questionnaire = questionnaire if questionnaire.is_absolute() else base / questionnaire
    if not q_text:
        problems.append("questionnaire is empty")
    elif not questionnaire.is_file():
        problems.append(f"questionnaire {q_text!r} does not exist")
    elif questionnaire.suffix.lower() not in QUESTIONNAIRE_SUFFIXES:
        problems.append(f"questionnaire {q_text!r} is not an Excel workbook (.xlsx)")
    output = record.get("output", "")
    if output:
        if Path(output).name != output or output in (".", ".."):
            problems.append(f"output {output!r} must be a file name, not a path (use --out for the folder)")
        elif not output.lower().endswith(".xlsx"):
            output += ".xlsx"
    year = record.get("year", "")
    if year and not re.fullmatch(r"(19|20)\d\d", year):
        problems.append(f"year {year!r} is not a year such as 2024")
    if problems:
        return None, problems
    return CompanyEntry(company=company, reports=tuple(reports), questionnaire=questionnaire,
                        output=output, year=year, where=where), []


def read_manifest(path: Path | str, only: Iterable[str] | None = None) -> list[CompanyEntry]:
    """The manifest's entries, in file order; `only` keeps those companies (names as in the file).
    Raises InputError with one line per bad entry."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"portfolio file not found: {path}")
    suffix = path.suffix.lower()
    readers = {".csv": _records_csv, ".xlsx": _records_xlsx, ".xlsm": _records_xlsx, ".toml": _records_toml}
    if suffix not in readers:
        raise InputError(f"portfolio {path.name}: expected a .csv, .xlsx or .toml file")
    records = readers[suffix](path)
    base = path.resolve().parent
    entries: list[CompanyEntry] = []
    errors: list[str] = []
    seen: dict[str, str] = {}
    unit = "entry" if suffix == ".toml" else "line"
    for line, record in records:
        where = f"{path.name} {unit} {line}"
        entry, problems = _entry(dict(record), base, where)
        name = record.get("company", "")
        if name and name.lower() in seen:
            problems.append(f"company {name!r} is already listed ({seen[name.lower()]})")
        elif name:
            seen[name.lower()] = where
        if problems:
            label = f" ({name})" if name else ""
            errors.append(f"{where}{label}: {'; '.join(problems)}")
        elif entry is not None:
            entries.append(entry)
    if errors:
        raise InputError("\n".join(errors))
    if not entries:
        raise InputError(f"portfolio {path.name} lists no company")
    if only:
        wanted = [w.strip() for w in only if w.strip()]
        by_name = {e.company.lower(): e for e in entries}
        unknown = [w for w in wanted if w.lower() not in by_name]
        if unknown:
            raise InputError(f"--companies: {', '.join(repr(u) for u in unknown)} not in {path.name} "
                             f"(companies: {', '.join(e.company for e in entries)})")
        keep = {w.lower() for w in wanted}
        entries = [e for e in entries if e.company.lower() in keep]
    return entries
