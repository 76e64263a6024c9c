"""Cell text a workbook can hold: the one owner of the characters an .xlsx cannot (issue 43).

Every text that reaches a workbook (a model's answer, a reviewer's edit, the library, PDF passages, a
CSV questionnaire, Run info, sheet names, comments, links) passes `xml_safe`: characters XML 1.0 cannot
hold (C0 controls but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF) and Unicode's non-characters are
replaced by U+FFFD, visibly, never dropped or written raw, and the caller names what was replaced in
the row's Checks (`replaced_reason`). Cells are written with `set_text` (never a formula, within Excel's
cell limit); `guard_workbook` is the last look before every save, whatever path put a text in.
workbook/safety.py re-exports all of it."""

from __future__ import annotations

import logging
import re

log = logging.getLogger(__name__)

# Excel's hard limit on characters in one cell.
EXCEL_CELL_LIMIT = 32_767
# Characters the XML behind .xlsx cannot hold (XML 1.0's Char production: C0 controls but tab, LF and
# CR; surrogates, which a Python string can hold alone; U+FFFE and U+FFFF), and Unicode's non-characters
# (U+FDD0-FDEF and the last two code points of every plane), which XML allows but "discourages" and
# which no text a person or a report means to send holds. Each is replaced by REPLACEMENT, visibly.
_NON_CHARACTERS = "".join(f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(1, 17))
ILLEGAL_CHARACTERS_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
                                   + _NON_CHARACTERS + "]")
_UNSAFE_OR_PAIR = re.compile("([\ud800-\udbff][\udc00-\udfff])|" + ILLEGAL_CHARACTERS_RE.pattern)
# A quick first look (a regex whose class holds astral ranges is several times slower): the BMP's unsafe
# characters, or any character beyond the BMP, which ILLEGAL_CHARACTERS_RE then looks at properly.
_SUSPECT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]|[\U00010000-\U0010ffff]")
REPLACEMENT = "\ufffd"
# Leading characters that make Excel (or a CSV export of the sheet) treat text as a formula.
FORMULA_PREFIXES = ("=", "+", "-", "@")


def xml_safe(text: str) -> tuple[str, list[int]]:
    """`text` with every character an .xlsx cannot hold (ILLEGAL_CHARACTERS_RE) replaced by U+FFFD, and
    the code points replaced, in order (pure). A surrogate pair held as two code units is joined into
    the character it spells; only a lone surrogate is replaced."""
    if not _SUSPECT.search(text) or not ILLEGAL_CHARACTERS_RE.search(text):
        return text, []
    replaced: list[int] = []

    def fix(m: re.Match) -> str:
        if m.group(1):
            return m.group(1).encode("utf-16-le", "surrogatepass").decode("utf-16-le")
        replaced.append(ord(m.group(0)))
        return REPLACEMENT

    return _UNSAFE_OR_PAIR.sub(fix, text), replaced


def replaced_reason(replaced: dict[str, list[int]]) -> str:
    """The Checks line for characters `xml_safe` replaced, by the cell they were in ({"Answer": [0xFFFF]})
    -> "1 character an Excel file cannot hold (U+FFFF) replaced by U+FFFD in the Answer"; "" for none."""
    cells = [name for name, codes in replaced.items() if codes]
    if not cells:
        return ""
    codes = list(dict.fromkeys(c for name in cells for c in replaced[name]))
    count = sum(len(replaced[name]) for name in cells)
    shown = ", ".join(f"U+{c:04X}" for c in codes[:5]) + (", ..." if len(codes) > 5 else "")
    where = ", ".join(cells[:-1]) + (" and " if len(cells) > 1 else "") + cells[-1]
    return (f"{count} character{'s' if count != 1 else ''} an Excel file cannot hold ({shown}) replaced by U+FFFD "
            f"in the {where}")


def say_replaced(rows: int) -> None:
    """One warning for the rows whose text had characters replaced (their Checks name them)."""
    if rows:
        log.warning("%d row%s held characters an Excel file cannot hold: replaced by U+FFFD, named in %s Checks",
                    rows, "s" if rows != 1 else "", "their" if rows != 1 else "its")


def clean_text(text: str) -> str:
    """Replace characters an .xlsx cannot hold (xml_safe) and cut text beyond Excel's cell limit with a
    visible note."""
    text = xml_safe(text)[0]
    if len(text) <= EXCEL_CELL_LIMIT:
        return text
    # The note's length depends on the number it reports; two passes settle it.
    keep = EXCEL_CELL_LIMIT - 60
    for _ in range(2):
        note = f"… [truncated by autofill: {len(text) - keep} characters omitted]"
        keep = EXCEL_CELL_LIMIT - len(note)
    note = f"… [truncated by autofill: {len(text) - keep} characters omitted]"
    return text[:keep] + note


def set_text(cell, value) -> list[int]:
    """Write a value into a cell as plain text, never as a formula; the code points `xml_safe` replaced
    (the caller names them in the row's Checks).

    openpyxl turns any string starting with "=" into a formula; forcing the string data type makes it
    write an inline string instead, and the quotePrefix style keeps Excel from re-reading it as a
    formula when a reviewer edits the cell. None and "" clear the cell."""
    if value is None or value == "":
        cell.value = None
        return []
    if not isinstance(value, str):
        value = str(value)
    replaced = xml_safe(value)[1]
    text = clean_text(value)
    cell.value = text
    if text.startswith(FORMULA_PREFIXES):
        cell.data_type = "s"
        cell.quotePrefix = True
    return replaced


def guard_workbook(wb) -> list[str]:
    """The last guard before a workbook is saved: every text it holds that an .xlsx cannot (cell values
    and rich text, sheet titles, comments, hyperlinks, drop-down messages, document properties) made
    safe in place (xml_safe), whatever path put it there; the places fixed ("Sheet!B7"), each logged.
    Text written through `set_text` is safe already: this finds what came in another way."""
    fixed: list[str] = []

    def safe(value, where: str):
        if isinstance(value, str):
            text, replaced = xml_safe(value)
            if replaced:
                fixed.append(where)
            return text
        return value

    unsafe = _SUSPECT.search
    for ws in wb.worksheets:
        title = safe(ws.title, f"sheet name {ws.title!r}")
        if title != ws.title:
            ws.title = title
        for cell in ws._cells.values():  # the hot loop: 100,000s of cells, most of them plain and safe
            value = getattr(cell, "_value", None)
            if value.__class__ is str:
                if unsafe(value):
                    cell._value = safe(value, f"{ws.title}!{cell.coordinate}")
            elif value is not None and type(value).__name__ == "CellRichText":
                where = f"{ws.title}!{cell.coordinate}"
                for i, part in enumerate(value):
                    if isinstance(part, str):
                        value[i] = safe(part, where)
                    elif isinstance(getattr(part, "text", None), str):
                        part.text = safe(part.text, where)
            comment = getattr(cell, "_comment", None)
            if comment is not None:
                comment.content = safe(comment.content, f"comment of {ws.title}!{cell.coordinate}")
                comment.author = safe(comment.author, f"comment of {ws.title}!{cell.coordinate}")
            link = getattr(cell, "_hyperlink", None)
            if link is not None:
                for attr in ("target", "location", "tooltip", "display"):
                    setattr(link, attr, safe(getattr(link, attr, None), f"link of {ws.title}!{cell.coordinate}"))
        for dv in ws.data_validations.dataValidation:
            for attr in ("prompt", "promptTitle", "error", "errorTitle", "formula1", "formula2"):
                setattr(dv, attr, safe(getattr(dv, attr, None), f"drop-down of {ws.title}"))
    props = getattr(wb, "properties", None)
    for attr in ("title", "subject", "creator", "keywords", "description", "lastModifiedBy", "category"):
        if props is not None:
            setattr(props, attr, safe(getattr(props, attr, None), f"document property {attr}"))
    if fixed:
        places = list(dict.fromkeys(fixed))
        log.warning("characters an Excel file cannot hold replaced by U+FFFD in %s%s", ", ".join(places[:5]),
                    f" and {len(places) - 5} more places" if len(places) > 5 else "")
    return fixed
