"""Which page of a passage that runs over a page break a quote or an answer comes from.

Chunks record a page range, not where in the text the page turns, so a citation of a passage on
pp. 3-4 would otherwise always say p. 3, even for a table row printed on p. 4. Reviewers check
every citation against its page, so the locator re-reads those pages from the ingested PDF (the
store records where it came from) and picks the page that holds the snippet's words. When the PDF
is gone or unreadable it answers the first page, as before."""

from __future__ import annotations

import logging
import re
import threading
from pathlib import Path
from typing import Mapping

from autofill.records import DocumentRecord, Passage

log = logging.getLogger(__name__)

_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class PageLocator:
    def __init__(self, documents: Mapping[str, DocumentRecord]) -> None:
        self._paths = {name: Path(rec.source_path) for name, rec in documents.items() if rec.source_path}
        self._pages: dict[tuple[str, int], set[str]] = {}
        self._lock = threading.Lock()

    def _page_tokens(self, file_name: str, page: int) -> set[str] | None:
        key = (file_name, page)
        with self._lock:
            if key in self._pages:
                return self._pages[key]
        path = self._paths.get(file_name)
        tokens: set[str] | None = None
        if path is not None and path.is_file():
            from autofill.pdflib import import_pymupdf

            pymupdf = import_pymupdf()  # outside the try: a broken install fails the row, loudly
            try:
                with pymupdf.open(str(path)) as doc:
                    if 1 <= page <= doc.page_count:
                        tokens = set(_tokens(doc[page - 1].get_text()))
            except (AttributeError, ImportError, NameError):
                raise  # a broken or half-imported library: fail the row, never cite the first page silently
            except Exception as exc:  # noqa: BLE001 - MuPDF's errors come in many classes
                # A changed or damaged file only costs precision.
                log.debug("page %d of %s not read for page location: %s", page, file_name, exc)
                tokens = None
        with self._lock:
            self._pages[key] = tokens or set()
        return tokens

    def page_of(self, passage: Passage, snippet: str) -> int:
        """The page in passage's range holding most of `snippet`'s distinct words, numbers weighing
        triple (they pin a table row to its page); ties and failures give the first page."""
        if passage.page_end <= passage.page_start or not snippet.strip():
            return passage.page_start
        words = set(_tokens(snippet))
        best, best_score = passage.page_start, 0.0
        for page in range(passage.page_start, passage.page_end + 1):
            tokens = self._page_tokens(passage.file_name, page)
            if not tokens:
                continue
            score = sum(3.0 if any(ch.isdigit() for ch in w) else 1.0 for w in words & tokens)
            if score > best_score:
                best, best_score = page, score
        return best
