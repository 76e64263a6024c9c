"""Every formula's cached value brought up to date, so programs that read cached values (EFRAG's VSME
converter, pandas, bank pipelines) see totals, dates and checks as Excel would (issue 45).

The engine is formualizer (MIT, Rust with a Python wheel, no dependencies, 22 MB installed): it
recomputes the formulas of an xlsx package and writes their cached values into the sheet XML, leaving
the other parts of the package alone. Chosen by measurement on EFRAG's VSME sample (3,722 formulas with
IFS, XLOOKUP, dynamic arrays, cross-sheet names; benchmarks/formula_engines.py): 1.9 s and 56 MB, and
3,720 of the 3,722 values Excel cached are computed again the same. The two it gets otherwise are formulas
whose inputs no write changes (the template's CELL("filename") check of "is this Excel?" and one
HYPERLINK label): where the engine gives a formula the same value before and after the writes, Excel's
own cached value from the workbook received is kept (`keep_excel_values`), so a value only changes when
something written changes it.

When the engine refuses a workbook (a feature it does not support, such as a dynamic array spilling
into merged cells after openpyxl dropped the array metadata), the formulas keep the cached values of the
workbook received and a warning says so; the package asks Excel to recalculate on opening either way."""

from __future__ import annotations

import logging
import re

from autofill.workbook.xlsx_parts import Package, SheetXml

log = logging.getLogger(__name__)

_CELL = re.compile(r"<(\w+:)?c\b([^>]*?)(?:/>|>(.*?)</\1?c>)", re.S)
_FULL_CALC = ' fullCalcOnLoad="1"'


# The engine takes the workbook part of an .xlsx only: a macro workbook or a template is shown to it as one.
XLSX_MAIN = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
_OTHER_MAINS = ("application/vnd.ms-excel.sheet.macroEnabled.main+xml",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml",
                "application/vnd.ms-excel.template.macroEnabled.main+xml")


def refresh(data: bytes, baseline: bytes | None = None) -> bytes:
    """`data` (an xlsx package) with its formulas' cached values computed again. `baseline`: the workbook
    `data` was made from (the file received), whose cached values are kept where nothing written changes
    them, and used as they are when the engine cannot compute the workbook."""
    out = Package(data)
    if not _has_formulas(out):
        # Nothing to compute: the engine, which loads the whole workbook (30,000 Evidence rows at 5,000
        # questions: most of a long run's peak memory, benchmarks/run_rows.py), would change no part.
        _ask_excel_to_recalculate(out)
        return out.to_bytes()
    reason = _compute_into(out, data)
    if reason:
        log.warning("the formulas' values could not be computed (%s): they keep the values the workbook had "
                    "when it was received, and Excel recalculates them on opening", reason)
        if baseline is not None:
            _restore(out, Package(baseline), None)
    elif baseline is not None:
        keep_excel_values(out, baseline)
    _ask_excel_to_recalculate(out)
    return out.to_bytes()


def _compute_into(package: Package, data: bytes) -> str:
    """The engine's cached values put into `package`'s worksheets (only those parts are taken from its
    output); "" when done, else why the engine could not."""
    try:
        import formualizer
    except ImportError:  # pragma: no cover - a dependency of the package
        return "the formula engine formualizer is not installed"
    types = package.parts.get("[Content_Types].xml", b"").decode("utf-8", "replace")
    if _has_zip64(data) or any(t in types for t in _OTHER_MAINS):
        # streamed members (the Evidence rows) carry ZIP64 headers the engine refuses; re-packed
        for other in _OTHER_MAINS:
            types = types.replace(other, XLSX_MAIN)
        data = package.to_bytes({"[Content_Types].xml": types.encode("utf-8")})
    try:
        result = formualizer.recalculate_xlsx_bytes(data)
    except Exception as exc:  # the engine refuses what it does not support: the output is still written
        return str(exc).removeprefix("recalculate XLSX failed: ")
    unknown = (result.get("summary") or {}).get("unknown_functions")
    if unknown:
        log.info("formulas calling functions the engine lacks keep an error value: %s", unknown)
    computed = Package(result["bytes"])
    for part in package.sheets.values():
        new = computed.parts.get(part)
        if new is not None and new != package.parts[part]:
            package.parts[part] = new
            package.changed.add(part)
    return ""


def _has_formulas(package: Package) -> bool:
    """Whether any worksheet holds a formula cell (an `<f>` element; text in a cell is escaped)."""
    return any(re.search(rb"<(?:\w+:)?f\b", package.parts[part]) for part in package.sheets.values())


def _has_zip64(data: bytes) -> bool:
    import zipfile
    from io import BytesIO

    with zipfile.ZipFile(BytesIO(data)) as zf:
        infos = zf.infolist()
    for info in infos:  # the local headers: a streamed member has its ZIP64 field there only
        at = info.header_offset
        names, extras = (int.from_bytes(data[at + 26:at + 28], "little"),
                         int.from_bytes(data[at + 28:at + 30], "little"))
        if _zip64_extra(info.extra) or _zip64_extra(data[at + 30 + names:at + 30 + names + extras]):
            return True
    return False


def _zip64_extra(extra: bytes) -> bool:
    at = 0
    while at + 4 <= len(extra):
        kind, size = int.from_bytes(extra[at:at + 2], "little"), int.from_bytes(extra[at + 2:at + 4], "little")
        if kind == 0x0001:
            return True
        at += 4 + size
    return False


def keep_excel_values(out: Package, baseline: bytes) -> int:
    """Put Excel's cached value from `baseline` back into each formula cell of `out` whose computed value
    is the same as the engine computes for `baseline` (nothing written changes it) but not what Excel
    had cached. Returns the number of cells put back."""
    base = Package(baseline)
    engine = Package(baseline)
    if _compute_into(engine, baseline):
        return 0
    same = _formula_values(engine)
    now = _formula_values(out)
    keep = {key for key, value in now.items() if same.get(key) == value}
    return _restore(out, base, keep)


def _restore(out: Package, base: Package, only: set[tuple[str, str]] | None) -> int:
    """Cached values of `base`'s formula cells put into the same formula cells of `out` (all, or those
    in `only`) where they differ: the base's own cell XML where the cell is otherwise the same (byte for
    byte as received), else its value and type. Returns how many were put back."""
    excel = _formula_values(base)
    now = _formula_values(out)
    raw = _formula_cells(base)
    changes: dict[str, dict[str, tuple[str | None, str, str]]] = {}
    for key, value in excel.items():
        if value[1] is None or key not in now or now[key] == value or (only is not None and key not in only):
            continue
        changes.setdefault(key[0], {})[key[1]] = (*value, raw.get(key, ""))
    for sheet, cells in changes.items():
        part = out.sheets[sheet]
        out.put(part, _set_cached(out.text(part), cells))
    return sum(len(c) for c in changes.values())


def _formula_cells(package: Package) -> dict[tuple[str, str], str]:
    """(sheet, ref) -> the XML of every formula cell."""
    out = {}
    for sheet, part in package.sheets.items():
        for m in _CELL.finditer(package.text(part)):
            ref = re.search(r'(?<![\w:])r="([A-Z]+[0-9]+)"', m.group(2))
            if ref and m.group(3) and re.search(r"<(?:\w+:)?f\b", m.group(3)):
                out[(sheet, ref.group(1))] = m.group(0)
    return out


def _shape(cell: str) -> str:
    """A cell's XML without its cached value and value type: what two versions of a cell share."""
    cell = re.sub(r"<(?:\w+:)?v(?:\s[^>]*)?>[^<]*</(?:\w+:)?v>|<(?:\w+:)?v\s*/>", "", cell)
    return " ".join(sorted(re.sub(r'\s(?<![\w:])t="\w+"', "", cell.split(">", 1)[0]).split())) + cell.split(">", 1)[1]


def _formula_values(package: Package) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    """(sheet, ref) -> (type, cached text) of every formula cell; the text None when there is none."""
    out = {}
    for sheet, part in package.sheets.items():
        for m in _CELL.finditer(package.text(part)):
            body = m.group(3) or ""
            if not re.search(r"<(?:\w+:)?f\b", body):
                continue
            ref = re.search(r'(?<![\w:])r="([A-Z]+[0-9]+)"', m.group(2))
            if not ref:
                continue
            t = re.search(r'(?<![\w:])t="(\w+)"', m.group(2))
            v = re.search(r"<(?:\w+:)?v(?:\s[^>]*)?>([^<]*)</(?:\w+:)?v>", body)
            text = v.group(1) if v else ("" if re.search(r"<(?:\w+:)?v\s*/>", body) else None)
            kind = t.group(1) if t else None
            if text == "" and kind != "str":  # an empty number is no value (openpyxl writes <v></v>)
                text = None
            out[(sheet, ref.group(1))] = (kind, text)
    return out


def _set_cached(xml: str, cells: dict[str, tuple[str | None, str, str]]) -> str:
    """Sheet XML with the cached value and type of the formula cells in `cells` replaced: (type, text,
    the received cell's XML, used as it is when the cell is otherwise unchanged)."""
    p = SheetXml(xml).p

    def swap(m: re.Match) -> str:
        ref = re.search(r'(?<![\w:])r="([A-Z]+[0-9]+)"', m.group(2))
        if not ref or ref.group(1) not in cells or not m.group(3):
            return m.group(0)
        kind, text, received = cells[ref.group(1)]
        if received and _shape(received) == _shape(m.group(0)):
            return received
        attrs = re.sub(r'\s(?<![\w:])t="\w+"', "", m.group(2))
        if kind:
            attrs += f' t="{kind}"'
        body = re.sub(r"<(?:\w+:)?v(?:\s[^>]*)?>[^<]*</(?:\w+:)?v>|<(?:\w+:)?v\s*/>", "", m.group(3))
        space = ' xml:space="preserve"' if text != text.strip() else ""
        value = f"<{p}v{space}>{text}</{p}v>"
        f_end = re.search(r"<(?:\w+:)?f\b[^>]*?/>|</(?:\w+:)?f>", body)
        body = body[:f_end.end()] + value + body[f_end.end():] if f_end else body + value
        return f"<{p}c{attrs}>{body}</{p}c>"

    return _CELL.sub(swap, xml)


def _ask_excel_to_recalculate(package: Package) -> None:
    """Set fullCalcOnLoad on the workbook's calcPr: Excel computes every formula again when it opens it."""
    name = package.workbook_part
    xml = package.text(name)
    m = re.search(r"<(\w+:)?calcPr\b[^>]*?/?>", xml)
    if m:
        tag = m.group(0)
        if re.search(r'\bfullCalcOnLoad="(1|true)"', tag):
            return
        tag = re.sub(r'\sfullCalcOnLoad="[^"]*"', "", tag)
        end = -2 if tag.endswith("/>") else -1
        new = tag[:end].rstrip() + _FULL_CALC + tag[end:]
        package.put(name, xml[:m.start()] + new + xml[m.end():])
        return
    root = re.search(r"<(\w+:)?workbook\b", xml)
    p = root.group(1) or "" if root else ""
    close = re.search(rf"<{p}(?:oleSize|customWorkbookViews|pivotCaches|smartTagPr|smartTagTypes|webPublishing|"
                      rf"fileRecoveryPr|webPublishObjects|extLst)\b|</{p}workbook>", xml)
    if close:
        package.put(name, xml[:close.start()] + f"<{p}calcPr{_FULL_CALC}/>" + xml[close.start():])
