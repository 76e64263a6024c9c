"""Values written at the xlsx package level, so that every reader sees them (issue 45).

openpyxl rewrites the whole package on save and drops every formula's cached value, and what it does not
model (x14 cross-sheet drop-downs, dynamic-array metadata, slicers, custom XML ...) goes too. Readers that
take cached values (EFRAG's VSME converter, pandas, most bank pipelines) then see empty totals and dates.

Here a workbook is changed the way Excel would store an edit: only the `<c>` elements of the cells written
are replaced in their sheet's XML (each keeps its style), every other part of the zip is copied as it
was, and the formulas' cached values are brought up to date (workbook/recalc.py). A date goes in as its
serial number with a date style (the cell's own when it has one; else a copy of the cell's style with
the short-date format added to styles.xml). The input file is only read; the output is written atomically.

`patch_cells(src, dst, writes)` is the API other modules build on; `patch_bytes` is the same on bytes;
`refresh_package(data, baseline)` only brings cached values up to date: writeback, review apply and the
review pack call it after openpyxl's save. The package machinery is in xlsx_parts.py.

Measured (benchmarks/vsme_reader.py, EFRAG's reader as the oracle): EFRAG's filled sample gives its 144
facts as received, after patch_cells and after writeback's save, where a plain openpyxl save gives none
("must have a valid date for named range template_reporting_period_startdate"); the blank template given
the sample's 188 input values through patch_cells gives the same 144 facts, no error."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from autofill.errors import InputError
from autofill.fileio import atomic_write_bytes
from autofill.workbook.recalc import refresh
from autofill.workbook.xlsx_parts import CellValue, CellWrite, Package, is_date_format  # noqa: F401 (the API)

__all__ = ["CellValue", "CellWrite", "patch_cells", "patch_bytes", "refresh_package", "is_date_format"]


def patch_cells(src: Path, dst: Path, writes: Iterable[CellWrite]) -> None:
    """Write `writes` into a copy of the workbook `src` at `dst` (atomically; `src` is never modified).
    Only the written cells' XML changes, besides the cached values of formulas. A missing sheet, a bad
    reference or a write into a formula cell is an InputError naming the cell."""
    src, dst = Path(src), Path(dst)
    if dst.exists() and dst.resolve() == src.resolve():
        raise InputError(f"refusing to overwrite the input workbook itself: {src}")
    data = patch_bytes(src.read_bytes(), writes)
    atomic_write_bytes(dst, data)


def patch_bytes(data: bytes, writes: Iterable[CellWrite]) -> bytes:
    """`patch_cells` on the bytes of an xlsx package; returns the new package."""
    package = Package(data)
    package.write_cells(list(writes))

    return refresh(package.to_bytes(), baseline=data)


def refresh_package(data: bytes, baseline: bytes | None = None) -> bytes:
    """A package saved by openpyxl (which drops every cached value) with its formulas' cached values
    computed again; `baseline` is the workbook it was made from (recalc.refresh)."""
    return refresh(data, baseline)
