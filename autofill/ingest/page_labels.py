"""The number printed on each page, which readers of a report quote ("p. 24") and which often differs
from the PDF page index autofill cites and evaluates with (a cover and contents come first).

Taken from the PDF's own page labels when it defines them (`/PageLabels`, what a PDF viewer shows),
else detected in the header and footer bands: a number standing alone or at either end of a margin
line ("24", "BHP Climate Transition Action Plan  27"), kept only where it agrees with the offset
(printed number minus page index) most pages show, so a year, a footnote or a phone number is never
taken for a folio. Pages without an agreeing number get "" (unknown).

A label's prefix is a PDF string, which PyMuPDF hands over as written in the file: a hex string
(`<FEFF0043004F0056>`, UTF-16 with its byte order mark, or UTF-8 bytes) or a literal with escapes.
`decode_pdf_string` turns it into text, and the labels are numbered here (`number_label`), so
`p. 2 (printed COVb)` is cited, never `(printed <FEFF0043004F0056>b)`."""

from __future__ import annotations

import re
from collections import Counter

_EDGE_NUMBER = re.compile(r"^\s*(\d{1,4})\b|\b(\d{1,4})\s*$")
_HEX = re.compile(r"^<([0-9A-Fa-f\s]*)>$")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "(": "(", ")": ")", "\\": "\\"}
_ROMAN = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
MIN_AGREEING_PAGES = 2  # an offset seen on one page only may be chance
MIN_AGREEING_SHARE = 0.3  # of the pages that show any candidate number


def _bytes_text(data: bytes) -> str:
    """A PDF text string's bytes as text: UTF-16 (by its byte order mark), UTF-8, else PDFDocEncoding
    (Latin-1 here, which it equals for letters and digits)."""
    if data[:2] == b"\xfe\xff":
        return data[2:].decode("utf-16-be", errors="replace")
    if data[:2] == b"\xff\xfe":
        return data[2:].decode("utf-16-le", errors="replace")
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _unescape(text: str) -> str:
    """A literal string's backslash escapes (\\n, \\(, \\ddd ...) resolved, as bytes in Latin-1."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 == len(text):
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        octal = re.match(r"[0-7]{1,3}", text[i + 1:i + 4])
        if octal:
            out.append(chr(int(octal.group(), 8) & 0xFF))
            i += 1 + len(octal.group())
        else:
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
    return "".join(out)


def decode_pdf_string(raw: str) -> str:
    """A PDF string as text: `<FEFF0043004F0056>` -> "COV", `<C39C2D>` -> "Ü-", `\\376\\377...` (UTF-16 in a
    literal) and other escapes resolved; plain text stays as it is."""
    s = str(raw or "")
    m = _HEX.match(s.strip())
    if m:
        digits = re.sub(r"\s", "", m.group(1))
        return _bytes_text(bytes.fromhex(digits + "0" * (len(digits) % 2)))
    if "\\" not in s and all(ord(c) < 128 for c in s):
        return s
    unescaped = _unescape(s)
    if any(ord(c) > 255 for c in unescaped):
        return unescaped  # already text
    return _bytes_text(unescaped.encode("latin-1"))


def number_label(style: str, n: int) -> str:
    """The number part of a page label: D 1 2 3, R/r roman, A/a letters (A..Z, AA..ZZ ...); none for no style."""
    if n < 1 or style not in ("D", "R", "r", "A", "a"):
        return str(n) if style == "D" else ""
    if style == "D":
        return str(n)
    if style in ("A", "a"):
        letter = chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)
        return letter.upper() if style == "A" else letter
    out = []
    for value, numeral in _ROMAN:
        while n >= value:
            out.append(numeral)
            n -= value
    text = "".join(out)
    return text.upper() if style == "R" else text


def label_rules_to_labels(rules: list[dict], pages: int) -> list[str]:
    """One label per page from the PDF's label rules (startpage, prefix, style, firstpagenum), decoded."""
    rules = sorted(rules, key=lambda r: int(r.get("startpage", 0)))
    out = []
    for i in range(pages):
        rule = next((r for r in reversed(rules) if int(r.get("startpage", 0)) <= i), None)
        if rule is None:
            out.append("")
            continue
        n = i - int(rule.get("startpage", 0)) + int(rule.get("firstpagenum", 1) or 1)
        out.append((decode_pdf_string(rule.get("prefix", "")) + number_label(rule.get("style", ""), n)).strip())
    return out


def pdf_labels(doc) -> list[str] | None:
    """The PDF's page labels, one per page, or None when the file defines none."""
    try:
        rules = doc.get_page_labels()
        if not rules:
            return None
        return label_rules_to_labels(rules, doc.page_count)
    except Exception:  # noqa: BLE001 - a malformed /PageLabels tree: fall back to detection
        return None


def candidates(margin_lines: list[str]) -> set[int]:
    """Numbers at either end of the page's header/footer lines."""
    out: set[int] = set()
    for line in margin_lines:
        for m in _EDGE_NUMBER.finditer(line.strip()):
            value = int(m.group(1) or m.group(2))
            if 0 < value < 1900:  # a year is not a folio
                out.add(value)
    return out


def detect_printed(margins: list[list[str]]) -> list[str]:
    """Printed page numbers from the margin lines of each page (index 0 = PDF page 1); "" unknown."""
    found = [candidates(lines) for lines in margins]
    offsets: Counter[int] = Counter()
    for i, nums in enumerate(found, start=1):
        for n in nums:
            offsets[n - i] += 1
    showing = sum(1 for nums in found if nums)
    if not offsets:
        return [""] * len(margins)
    offset, support = offsets.most_common(1)[0]
    if support < MIN_AGREEING_PAGES and len(margins) > 1 or support < MIN_AGREEING_SHARE * showing:
        return [""] * len(margins)
    return [str(i + offset) if i + offset in nums else "" for i, nums in enumerate(found, start=1)]


def page_labels(doc, margins: list[list[str]]) -> list[str]:
    """One printed label per page: the PDF's labels, else the detected folios."""
    return pdf_labels(doc) or detect_printed(margins)
