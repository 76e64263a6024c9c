"""Damaged and partial PDFs: a file that opens is not necessarily whole.

MuPDF opens a truncated or corrupted file by repairing it (rebuilding the cross-reference table from
whatever objects it finds), so parsing "succeeds" with fewer pages, or with pages that have lost their
content. The first third of a 27-page report gave 27 pages, 18 of them without text, and was stored as
if it were the report. This module looks for three signs and describes each in plain words; the ingest
still stores the document (what is readable may be all there is) but flags it on its line, in the JSON
summary, in the store's record and in `autofill companies`:

- MuPDF had to repair the file (`Document.is_repaired`);
- the page tree declares more pages than the file holds page objects, or than could be read;
- far more pages without text than reports normally have (settings: ingest.damaged_empty_share and
  ingest.damaged_min_empty_pages; measured 0-11 % on 24 real annual and climate reports).

It also keeps the PDF library's own messages (MuPDF's repair notices, numpy RuntimeWarnings from
PyMuPDF's layout code on degenerate pages) off stderr: they go to the debug log, and the user reads
our one warning instead."""

from __future__ import annotations

import logging
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

from autofill.pdflib import import_pymupdf
from autofill.records import ParsedDocument
from autofill.settings import IngestSettings

log = logging.getLogger(__name__)

_quiet_lock = threading.Lock()
_quiet = False


def quiet_pdf_library() -> None:
    """Once per process: MuPDF prints nothing on stderr, and numpy RuntimeWarnings raised inside the
    PDF libraries are ignored (they come from layout heuristics on damaged or empty pages and say
    nothing a user can act on). Our own warnings are untouched."""
    global _quiet
    with _quiet_lock:
        if _quiet:
            return
        pymupdf = import_pymupdf()  # its layout model built on the first table search, not at import

        pymupdf.TOOLS.mupdf_display_errors(False)
        pymupdf.TOOLS.mupdf_display_warnings(False)
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"(pymupdf|fitz|pymupdf4llm)(\.|$)")
        _quiet = True


@dataclass
class Structure:
    """What the file's structure says, read without parsing any page."""

    repaired: bool = False
    repair_reason: str = ""  # MuPDF's messages on opening the file (what it repaired, and why)
    declared_pages: int | None = None  # /Root /Pages /Count, None when it cannot be read
    page_objects: int | None = None  # objects of /Type /Page, counted only for repaired files


def read_structure(path: Path) -> Structure:
    """Open the file and read its repair state and page counts. Never raises: a file that cannot be
    opened at all is parse_pdf's to report."""
    import pymupdf

    quiet_pdf_library()
    pymupdf.TOOLS.reset_mupdf_warnings()
    try:
        doc = pymupdf.open(str(path), filetype="pdf")
    except Exception:  # noqa: BLE001 - parse_pdf says why, in its own words
        return Structure()
    try:
        messages = pymupdf.TOOLS.mupdf_warnings()
        if messages:
            log.debug("%s: MuPDF said on opening it: %s", path.name, messages.replace("\n", "; ")[:500])
        # Lines like "... repeated 171 times..." close a run of messages from earlier work: not ours.
        said = [ln for ln in messages.splitlines() if ln and not ln.startswith("... repeated")]
        out = Structure(repaired=bool(doc.is_repaired), repair_reason="\n".join(said)[:2000])
        out.declared_pages = _declared_pages(doc)
        if out.repaired:
            # A repaired file's page tree may point at objects that were lost; count what is there.
            # Only then: on a sound file the page tree is trustworthy and the scan would be wasted.
            out.page_objects = _page_objects(doc)
        return out
    finally:
        doc.close()


def _declared_pages(doc) -> int | None:
    try:
        kind, value = doc.xref_get_key(doc.pdf_catalog(), "Pages")
        if kind != "xref":
            return None
        kind, count = doc.xref_get_key(int(value.split()[0]), "Count")
        return int(count) if kind == "int" else None
    except Exception:  # noqa: BLE001 - no readable page tree: nothing to compare with
        return None


def _page_objects(doc) -> int | None:
    try:
        return sum(1 for x in range(1, doc.xref_length()) if doc.xref_get_key(x, "Type") == ("name", "/Page"))
    except Exception:  # noqa: BLE001
        return None


def page_ranges(pages: list[int], most: int = 6) -> str:
    """[2, 3, 4, 9, 12, 13] -> "2-4, 9, 12-13" (at most `most` ranges, then "...")."""
    runs: list[list[int]] = []
    for p in sorted(pages):
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    parts = [f"{a}-{b}" if a != b else str(a) for a, b in runs]
    return ", ".join(parts[:most]) + (", ..." if len(parts) > most else "")


def damage_warnings(structure: Structure, doc: ParsedDocument, settings: IngestSettings) -> list[str]:
    """Plain-words reasons to distrust a parsed document; empty for a sound one. Pure."""
    out: list[str] = []
    if structure.repaired:
        if "startxref" in structure.repair_reason.lower():
            what = "it ends early (truncated download or copy?)"
        else:
            what = "its internal index is broken"
        out.append(f"damaged file: {what} and had to be repaired; pages or text may be missing")
    declared = structure.declared_pages
    if declared:
        found = min(n for n in (structure.page_objects, doc.page_count) if n is not None)
        if found < declared:
            verb = "are in the file" if found == structure.page_objects else "could be read"
            out.append(f"its page list declares {declared} pages but only {found} {verb}")
    empty = len(doc.empty_pages)
    if doc.page_count and empty >= settings.damaged_min_empty_pages \
            and empty / doc.page_count > settings.damaged_empty_share:
        out.append(f"{empty} of {doc.page_count} pages have no extractable text "
                   f"(pages {page_ranges(doc.empty_pages)}); reports usually have a few at most")
    return out


def check_pdf(path: Path, doc: ParsedDocument, settings: IngestSettings) -> list[str]:
    """The warnings for a parsed document (see the module docstring)."""
    found = damage_warnings(read_structure(Path(path)), doc, settings)
    for why in found:
        log.debug("%s: %s", Path(path).name, why)
    return found
