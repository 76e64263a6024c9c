"""`Sources` cells as hyperlinks to the first cited page (`reports/My report.pdf#page=26`), relative
to the workbook's folder so the link survives copying the folder (or a review pack) elsewhere. A cell
holds one link in Excel; the first source is the most relevant. Only cells in a column headed
`Sources` (the column autofill adds) are touched, and only their link, never their text."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Callable
from urllib.parse import quote

HEADER = "sources"
HEADER_SCAN_ROWS = 30

LinkFor = Callable[[str, int], str]  # (file name, page) -> link, "" for none
_SOURCE_RE = re.compile(r"^(?P<file>.+?)\s+pp?\.\s*(?P<page>\d+)(?:\s*[-\u2013]\s*(?P<end>\d+))?"
                        r"(?:\s*\(printed\s+[^)]*\))?\s*$")


def parse_sources(text: str) -> list[tuple[str, int]]:
    """`FILE p. N; FILE p. M` -> [(FILE, N), (FILE, M)]; anything unparsable is skipped."""
    out: list[tuple[str, int]] = []
    for part in (text or "").split(";"):
        m = _SOURCE_RE.match(part.strip())
        if m:
            pair = (m.group("file").strip(), int(m.group("page")))
            if pair not in out:
                out.append(pair)
    return out


def relative_link(pdf: Path | None, base_dir: Path, page: int | None = None) -> str:
    """`pdf` relative to `base_dir` as a URL path (`../reports/My%20report.pdf#page=3`); an absolute
    file:// URI when no relative path exists (another drive on Windows); "" without a PDF."""
    if pdf is None:
        return ""
    fragment = f"#page={page}" if page else ""
    try:
        rel = os.path.relpath(Path(pdf).resolve(), Path(base_dir).resolve())
    except ValueError:
        return Path(pdf).resolve().as_uri() + fragment
    # A file name that is not UTF-8 (held as surrogates) is linked by its bytes, as it is on disk.
    return quote(Path(rel).as_posix(), errors="surrogateescape") + fragment


def pdf_links(documents: str | dict | None, workbook_dir: Path) -> LinkFor:
    """Links to the ingested PDFs named in the Run info `documents` entry (JSON file name -> path),
    relative to `workbook_dir`."""
    if isinstance(documents, str):
        try:
            documents = json.loads(documents) if documents else {}
        except json.JSONDecodeError:
            documents = {}
    paths = {str(k): Path(str(v)) for k, v in (documents or {}).items() if k and v} \
        if isinstance(documents, dict) else {}

    def link(file_name: str, page: int) -> str:
        path = paths.get(file_name)
        return relative_link(path, workbook_dir, page) if path is not None else ""

    return link


def link_sources(wb, link_for: LinkFor) -> int:
    """Give every non-empty `Sources` cell a hyperlink to its first cited page; returns how many."""
    done = 0
    for ws in wb.worksheets:
        column, header_row = _sources_column(ws)
        if column is None:
            continue
        for row in range(header_row + 1, ws.max_row + 1):
            cell = ws.cell(row=row, column=column)
            cited = parse_sources(cell.value) if isinstance(cell.value, str) else []
            target = link_for(*cited[0]) if cited else ""
            if target:
                cell.hyperlink = target
                cell.hyperlink.tooltip = f"Open {cited[0][0]} at page {cited[0][1]}"
                done += 1
    return done


def _sources_column(ws) -> tuple[int | None, int]:
    for row in ws.iter_rows(min_row=1, max_row=min(ws.max_row, HEADER_SCAN_ROWS)):
        for cell in row:
            if isinstance(cell.value, str) and cell.value.strip().lower() == HEADER:
                return cell.column, cell.row
    return None, 0
