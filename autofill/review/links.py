"""Links from the review report (and the filled workbook) to the cited PDF pages, relative to the
folder that holds the linking file, so a report folder or a review pack opens its evidence on
another machine. `FILE.pdf#page=N` is the form browsers' PDF viewers open at that page."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from autofill.workbook.hyperlinks import relative_link  # noqa: F401 - re-exported


class Links:
    """The report's link for (file name, page): relative to the report folder, or into the pack's
    own `pdfs/` folder when the PDFs travel with it (`packed`)."""

    def __init__(self, sources: dict, report_dir: Path, packed: dict[str, str] | None = None):
        self.sources = sources  # file name -> PdfSource
        self.report_dir = Path(report_dir)
        self.packed = packed or {}  # file name -> path inside the pack ("pdfs/NAME.pdf")
        self._made: dict[tuple[str, int], str] = {}  # each page's link resolved once (paths resolve on disk)

    def link(self, file_name: str, page: int) -> str:
        made = self._made.get((file_name, page))
        if made is None:
            made = self._made[(file_name, page)] = self._link(file_name, page)
        return made

    def _link(self, file_name: str, page: int) -> str:
        if file_name in self.packed:
            return f"{quote(self.packed[file_name])}#page={page}"
        source = self.sources.get(file_name)
        return relative_link(source.path if source else None, self.report_dir, page)
