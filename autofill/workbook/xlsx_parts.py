"""The parts of an xlsx package held as text and changed in place (issue 45): sheets found through the
workbook's relationships, cells replaced in their sheet's XML as Excel stores them (typed, each keeping its
style), a date style added to styles.xml when a date goes into a cell without one. Everything not
written is kept as it was; package.py (writing cells) and recalc.py (cached values) build on it."""

from __future__ import annotations

import datetime
import math
import re
import zipfile
from dataclasses import dataclass
from io import BytesIO

from autofill.errors import InputError

CellValue = str | int | float | bool | datetime.date | None
MAX_TEXT = 32767  # Excel's limit of characters in a cell
_REF = re.compile(r"^\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$")
# XML 1.0 forbids these characters; OOXML stores them as _xHHHH_ (ST_Xstring), as Excel does.
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_ESCAPE_LIKE = re.compile(r"_(x[0-9A-Fa-f]{4}_)")
DATE_FORMAT_ID = 14  # the built-in short date (m/d/yyyy, shown in the reader's locale)
_DATE_BUILTINS = set(range(14, 23)) | {45, 46, 47}


@dataclass(frozen=True)
class CellWrite:
    """One input cell to write: `sheet` name, `ref` like "B7", and a typed value (None clears it)."""

    sheet: str
    ref: str
    value: CellValue


# ------------------------------------------------------------------------------------ the package


def _attr(tag: str, name: str) -> str | None:
    m = re.search(rf'(?<![\w:]){name}="([^"]*)"', tag)
    return m.group(1) if m else None


def unescape(text: str) -> str:
    return (text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&apos;", "'").replace("&#10;", "\n").replace("&#13;", "\r").replace("&#9;", "\t")
            .replace("&amp;", "&"))


def escape(text: str, quote: bool = False) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if quote else text


class Package:
    """An xlsx zip held in memory: parts by name (in their order), sheets by name, styles."""

    def __init__(self, data: bytes):
        try:
            with zipfile.ZipFile(BytesIO(data)) as zf:
                self.infos = zf.infolist()
                self.parts = {info.filename: zf.read(info.filename) for info in self.infos}
        except zipfile.BadZipFile:
            raise InputError("the workbook is not an xlsx package (not a zip file)") from None
        self.changed: set[str] = set()
        self.workbook_part = self._workbook_part()
        self.sheets = self._sheet_parts()  # sheet name -> part name, in workbook order
        wb_xml = self.text(self.workbook_part)
        pr = re.search(r"<(?:\w+:)?workbookPr\b[^>]*>", wb_xml)
        self.date1904 = bool(pr and _attr(pr.group(0), "date1904") in ("1", "true"))
        self._date_styles: dict[int, int] = {}

    def text(self, name: str) -> str:
        return self.parts[name].decode("utf-8")

    def put(self, name: str, text: str) -> None:
        self.parts[name] = text.encode("utf-8")
        self.changed.add(name)

    def _workbook_part(self) -> str:
        rels = self.parts.get("_rels/.rels", b"").decode("utf-8", "replace")
        for m in re.finditer(r"<Relationship\b[^>]*>", rels):
            if (_attr(m.group(0), "Type") or "").endswith("/officeDocument"):
                return (_attr(m.group(0), "Target") or "").lstrip("/")
        if "xl/workbook.xml" in self.parts:
            return "xl/workbook.xml"
        raise InputError("the workbook has no workbook part (not an Excel workbook)")

    def _rels_of(self, part: str) -> dict[str, str]:
        folder, _, base = part.rpartition("/")
        rels = self.parts.get(f"{folder}/_rels/{base}.rels", b"").decode("utf-8", "replace")
        out = {}
        for m in re.finditer(r"<Relationship\b[^>]*>", rels):
            rid, target = _attr(m.group(0), "Id"), _attr(m.group(0), "Target")
            if rid and target:
                out[rid] = target.lstrip("/") if target.startswith("/") else _join(folder, target)
        return out

    def _sheet_parts(self) -> dict[str, str]:
        rels = self._rels_of(self.workbook_part)
        out = {}
        for m in re.finditer(r"<(?:\w+:)?sheet\b[^>]*>", self.text(self.workbook_part)):
            name = _attr(m.group(0), "name")
            rid = re.search(r'\b\w+:id="([^"]+)"', m.group(0))
            if name is not None and rid and rels.get(rid.group(1)) in self.parts:
                out[unescape(name)] = rels[rid.group(1)]
        return out

    def styles_part(self) -> str | None:
        for target in self._rels_of(self.workbook_part).values():
            if target.endswith("styles.xml") and target in self.parts:
                return target
        return None

    # ---------------------------------------------------------------------------- cells

    def write_cells(self, writes: list[CellWrite]) -> dict[str, set[tuple[int, int]]]:
        """Write each cell; returns the cells written by sheet name as (row, column)."""
        by_sheet: dict[str, dict[tuple[int, int], CellValue]] = {}
        for w in writes:
            if w.sheet not in self.sheets:
                raise InputError(f"the workbook has no sheet named {w.sheet!r} (it has: {', '.join(self.sheets)})")
            m = _REF.match(str(w.ref).strip())
            if not m:
                raise InputError(f"{w.sheet}!{w.ref} is not a cell reference like B7")
            by_sheet.setdefault(w.sheet, {})[(int(m.group(2)), column_number(m.group(1)))] = w.value
        for sheet, cells in by_sheet.items():
            part = self.sheets[sheet]
            sheet_xml = SheetXml(self.text(part))
            for (row, col), value in sorted(cells.items()):
                sheet_xml.set_cell(sheet, row, col, value, self)
            self.put(part, sheet_xml.text())
        return {sheet: set(cells) for sheet, cells in by_sheet.items()}

    def date_style(self, style: int) -> int:
        """A cellXfs index showing a date: `style` itself when its number format is a date, else a new
        xf copying it with the short-date format (added once per style)."""
        if style in self._date_styles:
            return self._date_styles[style]
        part = self.styles_part()
        if part is None:
            raise InputError("the workbook has no styles part; a date cannot be given a date format")
        xml = self.text(part)
        xfs = _cell_xfs(xml)
        if xfs is None or not xfs[2]:
            raise InputError("the workbook's styles have no cell formats; a date cannot be given a date format")
        start, end, items = xfs
        xf = items[style] if style < len(items) else items[0]
        fmt = int(_attr(xf, "numFmtId") or 0)
        if fmt in _DATE_BUILTINS or _custom_is_date(xml, fmt):
            self._date_styles[style] = style
            return style
        head = re.match(r"<(?:\w+:)?xf\b[^>]*?(/?)>", xf)
        tag = head.group(0)
        new_tag = re.sub(r'\s(?:numFmtId|applyNumberFormat)="[^"]*"', "", tag)
        new_tag = re.sub(r"(<(?:\w+:)?xf)\b", rf'\1 numFmtId="{DATE_FORMAT_ID}" applyNumberFormat="1"', new_tag, 1)
        new_xf = new_tag + xf[len(tag):]
        block = xml[start:end]
        close = block.rfind("</")
        block = block[:close] + new_xf + block[close:]
        block = re.sub(r'(<(?:\w+:)?cellXfs\b[^>]*?\bcount=")\d+"', rf'\g<1>{len(items) + 1}"', block, 1)
        self.put(part, xml[:start] + block + xml[end:])
        self._date_styles[style] = len(items)
        return len(items)

    def serial(self, value: datetime.date) -> float | int:
        epoch = datetime.date(1904, 1, 1) if self.date1904 else datetime.date(1899, 12, 30)
        days = (value.toordinal() if not isinstance(value, datetime.datetime) else value.date().toordinal())
        days -= epoch.toordinal()
        if isinstance(value, datetime.datetime):
            seconds = value.hour * 3600 + value.minute * 60 + value.second + value.microsecond / 1e6
            return days + seconds / 86400
        return days

    def to_bytes(self, overrides: dict[str, bytes] | None = None) -> bytes:
        """The package as a zip, parts in their order (`overrides`: other bytes for some parts)."""
        overrides = overrides or {}
        out = BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            for info in self.infos:
                new = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                new.compress_type = info.compress_type
                new.external_attr = info.external_attr
                zf.writestr(new, overrides.get(info.filename, self.parts[info.filename]))
        return out.getvalue()


def _join(folder: str, target: str) -> str:
    parts = (folder.split("/") if folder else []) + target.split("/")
    out: list[str] = []
    for p in parts:
        if p == "..":
            if out:
                out.pop()
        elif p not in ("", "."):
            out.append(p)
    return "/".join(out)


def _cell_xfs(xml: str) -> tuple[int, int, list[str]] | None:
    m = re.search(r"<(?:\w+:)?cellXfs\b[^>]*?(?:/>|>.*?</(?:\w+:)?cellXfs>)", xml, re.S)
    if not m:
        return None
    items = re.findall(r"<(?:\w+:)?xf\b[^>]*?(?:/>|>.*?</(?:\w+:)?xf>)", m.group(0), re.S)
    return m.start(), m.end(), items


def _custom_is_date(xml: str, fmt: int) -> bool:
    if fmt < 164:
        return False
    m = re.search(rf'<(?:\w+:)?numFmt\b[^>]*\bnumFmtId="{fmt}"[^>]*>', xml)
    return bool(m) and is_date_format(unescape(_attr(m.group(0), "formatCode") or ""))


def is_date_format(code: str) -> bool:
    """Whether a number format code shows a date: d, m or y outside quotes, escapes and [colour] tags."""
    code = re.sub(r'"[^"]*"|\\.|\[[^\]]*\]|_.|\*.', "", code.split(";")[0])
    return bool(re.search(r"[dmyDMY]", code))


def column_number(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def column_letters(n: int) -> str:
    out = ""
    while n:
        n, rem = divmod(n - 1, 26)
        out = chr(65 + rem) + out
    return out


def xml_text(text: str) -> str:
    """Cell text as OOXML stores it: `_xHHHH_` look-alikes escaped, characters XML forbids as _xHHHH_."""
    text = _ESCAPE_LIKE.sub(r"_x005F_\1", text)
    text = _ILLEGAL.sub(lambda m: f"_x{ord(m.group(0)):04X}_", text)
    return escape(text)


# ------------------------------------------------------------------------------------ sheet XML


class SheetXml:
    """A worksheet part as text, changed cell by cell; everything outside the cells written is kept."""

    def __init__(self, xml: str):
        root = re.search(r"<(\w+:)?worksheet\b", xml)
        self.p = root.group(1) or "" if root else ""
        self.xml = xml

    def text(self) -> str:
        return self.xml

    def _sheet_data(self) -> tuple[int, int]:
        p = self.p
        m = re.search(rf"<{p}sheetData\b[^>]*?/>", self.xml)
        if m:  # an empty sheet: open it up
            opened = f"<{p}sheetData></{p}sheetData>"
            self.xml = self.xml[:m.start()] + opened + self.xml[m.end():]
            start = m.start() + len(f"<{p}sheetData>")
            return start, start
        m = re.search(rf"<{p}sheetData\b[^>]*>", self.xml)
        if not m:
            raise InputError("a worksheet of the workbook has no cell data part; it cannot be written")
        return m.end(), self.xml.index(f"</{p}sheetData>", m.end())

    def _blocked(self, row: int, col: int) -> str:
        """Why (row, col) is no input cell of its own: covered by merged cells, or part of an array
        formula's range (a spill), which Excel refuses to edit; "" when it can be written."""
        if not hasattr(self, "_areas"):
            self._areas = [("merged", m.group(1)) for m in re.finditer(rf'<{self.p}mergeCell\b[^>]*\bref="([^"]+)"',
                                                                          self.xml)]
            self._areas += [("array", m.group(1)) for m in re.finditer(
                rf'<{self.p}f\b[^>]*\bt="array"[^>]*\bref="([^"]+)"|<{self.p}f\b[^>]*\bref="([^"]+)"[^>]*\bt="array"',
                self.xml) if m.group(1)]
        for kind, ref in self._areas:
            corners = [_REF.match(x) for x in ref.split(":")]
            if len(corners) != 2 or not all(corners):
                continue
            (c1, r1), (c2, r2) = ((column_number(x.group(1)), int(x.group(2))) for x in corners)
            if r1 <= row <= r2 and c1 <= col <= c2 and (row, col) != (r1, c1):
                anchor = corners[0].group(0)
                return (f"is covered by the merged cells {ref} (write {anchor})" if kind == "merged"
                        else f"is part of the array formula of {anchor} ({ref})")
        return ""

    def set_cell(self, sheet: str, row: int, col: int, value: CellValue, package: Package) -> None:
        p = self.p
        why = self._blocked(row, col)
        if why:
            raise InputError(f"{sheet}!{column_letters(col)}{row} {why}; only input cells are written")
        start, end = self._sheet_data()
        row_re = re.compile(rf"<{p}row\b([^>]*?)(?:/>|>(.*?)</{p}row>)", re.S)
        implicit = 0
        for m in row_re.finditer(self.xml, start, end):
            r = _attr(m.group(1), "r")
            implicit = int(r) if r else implicit + 1
            if implicit == row:
                new_row = self._row_with(sheet, m.group(0), m.group(1), m.group(2), row, col, value, package)
                self.xml = self.xml[:m.start()] + new_row + self.xml[m.end():]
                break
            if implicit > row:
                new_row = self._row_with(sheet, f"<{p}row r=\"{row}\"/>", f' r="{row}"', None, row, col, value,
                                         package)
                self.xml = self.xml[:m.start()] + new_row + self.xml[m.start():]
                break
        else:
            new_row = self._row_with(sheet, f"<{p}row r=\"{row}\"/>", f' r="{row}"', None, row, col, value, package)
            self.xml = self.xml[:end] + new_row + self.xml[end:]
        self._widen_dimension(row, col)

    def _row_with(self, sheet, whole, attrs, body, row, col, value, package) -> str:
        p = self.p
        cell_re = re.compile(rf"<{p}c\b([^>]*?)(?:/>|>(.*?)</{p}c>)", re.S)
        body = body or ""
        implicit = 0
        for m in cell_re.finditer(body):
            ref = _attr(m.group(1), "r")
            implicit = column_number(_REF.match(ref).group(1)) if ref and _REF.match(ref) else implicit + 1
            if implicit == col:
                if re.search(rf"<{p}f\b", m.group(2) or ""):
                    raise InputError(f"{sheet}!{column_letters(col)}{row} holds a formula; only input cells "
                                     f"are written")
                cell = self._cell(m.group(1), row, col, value, package)
                body = body[:m.start()] + cell + body[m.end():]
                break
            if implicit > col:
                body = body[:m.start()] + self._cell("", row, col, value, package) + body[m.start():]
                break
        else:
            body += self._cell("", row, col, value, package)
        attrs = _widen_spans(attrs, col)
        return f"<{p}row{attrs}>{body}</{p}row>"

    def _cell(self, attrs: str, row: int, col: int, value: CellValue, package: Package) -> str:
        p = self.p
        style = _attr(attrs, "s")
        keep = re.sub(r'\s(?:r|t|s|cm|vm)="[^"]*"', "", attrs).rstrip("/ ")  # ph and the like stay
        ref = f"{column_letters(col)}{row}"
        head = f'<{p}c r="{ref}"'
        if isinstance(value, datetime.date):
            style = str(package.date_style(int(style or 0)))
        if style is not None and style != "0":
            head += f' s="{style}"'
        head += keep
        if value is None:
            return head + "/>"
        if isinstance(value, bool):
            return f'{head} t="b"><{p}v>{int(value)}</{p}v></{p}c>'
        if isinstance(value, datetime.date):
            return f"{head}><{p}v>{_number(package.serial(value), ref)}</{p}v></{p}c>"
        if isinstance(value, (int, float)):
            return f"{head}><{p}v>{_number(value, ref)}</{p}v></{p}c>"
        if not isinstance(value, str):
            raise InputError(f"{ref}: cannot write a {type(value).__name__} into a cell")
        if len(value) > MAX_TEXT:
            raise InputError(f"{ref}: text of {len(value)} characters is longer than a cell holds ({MAX_TEXT})")
        space = ' xml:space="preserve"' if value != value.strip() or "\n" in value else ""
        return f'{head} t="inlineStr"><{p}is><{p}t{space}>{xml_text(value)}</{p}t></{p}is></{p}c>'

    def _widen_dimension(self, row: int, col: int) -> None:
        m = re.search(rf'<{self.p}dimension\b[^>]*\bref="([^"]*)"', self.xml)
        if not m:
            return
        parts = [_REF.match(x) for x in m.group(1).split(":")]
        if not all(parts):
            return
        rows = [int(x.group(2)) for x in parts] + [row]
        cols = [column_number(x.group(1)) for x in parts] + [col]
        ref = f"{column_letters(min(cols))}{min(rows)}:{column_letters(max(cols))}{max(rows)}"
        if ref.split(":")[0] == ref.split(":")[1]:
            ref = ref.split(":")[0]
        self.xml = self.xml[:m.start(1)] + ref + self.xml[m.end(1):]


def _widen_spans(attrs: str, col: int) -> str:
    m = re.search(r'\bspans="(\d+):(\d+)"', attrs)
    if not m or int(m.group(1)) <= col <= int(m.group(2)):
        return attrs
    lo, hi = min(int(m.group(1)), col), max(int(m.group(2)), col)
    return attrs[:m.start()] + f'spans="{lo}:{hi}"' + attrs[m.end():]


def _number(value: int | float, ref: str) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{ref}: {value} is not a number a cell can hold")
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)
