"""Which files an ingest takes: PDF files named on the command line, and the PDFs found by walking the
folders named there (recursively unless told not to).

Everything met in a folder and not taken is listed with the reason (not a PDF, hidden, unreadable,
a duplicate, a subfolder not searched), so a user can see why a report they expected is missing.
A path named explicitly that cannot be ingested (missing, not a PDF, a folder without PDFs) is a
failure instead: the user asked for it."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from autofill.records import FileOutcome, SkippedFile


@dataclass
class Expansion:
    files: list[Path] = field(default_factory=list)  # PDFs to ingest, in walk order, each file once
    failed: list[FileOutcome] = field(default_factory=list)  # named paths that cannot be ingested
    skipped: list[SkippedFile] = field(default_factory=list)  # met in a folder, not taken, and why


def _is_pdf_name(name: str) -> bool:
    return name.lower().endswith(".pdf")


class _Walk:
    def __init__(self, recursive: bool):
        self.recursive = recursive
        self.out = Expansion()
        self._seen: dict[Path, Path] = {}  # resolved file -> the path it was first taken as

    def take(self, path: Path) -> None:
        key = path.resolve()
        first = self._seen.get(key)
        if first is None:
            self._seen[key] = path
            self.out.files.append(path)
        elif first != path:
            self.out.skipped.append(SkippedFile(str(path), f"duplicate: the same file as {first}"))
        # the same path named twice (a folder and a file in it): taken once, nothing to report

    def skip(self, path: Path, reason: str) -> None:
        self.out.skipped.append(SkippedFile(str(path), reason))

    def file_in_folder(self, path: Path) -> bool:
        """Take or skip one file met in a folder; True when it is a readable PDF (taken or a duplicate)."""
        reason = ""
        if path.name.startswith("."):
            reason = "hidden file"
        elif not _is_pdf_name(path.name):
            reason = "not a PDF"
        elif not path.exists():
            reason = "unreadable: a link to a file that does not exist"
        elif not path.is_file():
            reason = "not a regular file"
        elif not os.access(path, os.R_OK):
            reason = "unreadable: permission denied"
        if reason:
            self.skip(path, reason)
            return False
        self.take(path)
        return True

    def folder(self, top: Path) -> None:
        """Walk `top`, folders and files in name order, each real folder once (links may loop)."""
        visited: set[Path] = set()
        pdfs = 0
        unsearched = 0
        searched_below = False

        def walk(folder: Path) -> None:
            nonlocal pdfs, unsearched, searched_below
            real = folder.resolve()
            if real in visited:
                return self.skip(folder, "a link to a folder already searched")
            visited.add(real)
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError as exc:
                return self.skip(folder, f"unreadable folder: {exc.strerror or exc}")
            subfolders = []
            for entry in entries:
                path = folder / entry.name
                try:
                    is_dir = entry.is_dir()  # follows links
                except OSError:
                    is_dir = False
                if not is_dir:
                    pdfs += self.file_in_folder(path)
                elif entry.name.startswith("."):
                    self.skip(path, "hidden folder")
                elif not self.recursive:
                    found = _count_pdfs(path)
                    unsearched += found
                    held = f"; it holds {found} PDF{'' if found == 1 else 's'}" if found else ""
                    self.skip(path, f"subfolder not searched (--no-recursive){held}")
                else:
                    subfolders.append(path)
            for sub in subfolders:
                searched_below = True
                walk(sub)

        walk(top)
        if not pdfs:
            hint = ""
            if unsearched:
                hint = f" (its subfolders hold {unsearched}; leave out --no-recursive)"
            elif searched_below:
                hint = " (nor do its subfolders)"
            self.out.failed.append(FileOutcome(str(top), "failed", error=f"folder contains no PDF files{hint}"))


def _count_pdfs(folder: Path, limit: int = 10_000) -> int:
    """PDFs anywhere under `folder` (not hidden), for the --no-recursive hint; stops counting at `limit`."""
    n = 0
    for root, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        n += sum(1 for name in names if _is_pdf_name(name) and not name.startswith("."))
        if n >= limit:
            break
    return n


def expand_paths(paths: Sequence[Path | str], recursive: bool = True) -> Expansion:
    """The PDFs to ingest from `paths` (files and folders), what failed and what was skipped."""
    w = _Walk(recursive)
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            w.folder(p)
        elif not p.exists():
            w.out.failed.append(FileOutcome(str(p), "failed", error="no such file or folder"))
        elif not p.is_file():
            w.out.failed.append(FileOutcome(str(p), "failed", error="not a regular file"))
        elif not _is_pdf_name(p.name):
            w.out.failed.append(FileOutcome(str(p), "failed", error="not a PDF file (expected a .pdf report)"))
        else:
            w.take(p)
    return w.out
