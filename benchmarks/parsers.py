"""Which PDF parser for ingestion? Pages per second on the BHP reports in ../shared/datasets/bhp/.

    python benchmarks/parsers.py [--full] [--sample N]

Prints one line per approach: pages parsed, seconds, pages/s, characters and tables found. Fast
approaches run on all pages; slow ones (full table detection, pymupdf4llm, pdfplumber) on the first
N pages of each file unless --full, since pages/s is what we compare. Skips cleanly (exit 0) when
the dataset is absent. Wall-clock times on a shared machine are noisy: compare orders of magnitude.

Licences: PyMuPDF and pymupdf4llm are AGPL-3.0 (acceptable for an internal tool; shipping to third
parties would need Artifex's commercial licence); pdfplumber is MIT.

Figures and the decision they support: the module docstring of autofill/ingest/pdf.py.
see the lead's report / the module docstring of autofill/ingest/pdf.py for the decision.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "bhp"


def _pages(paths: list[Path], limit: int | None) -> list[tuple[Path, list[int]]]:
    import pymupdf

    out = []
    for p in paths:
        with pymupdf.open(p) as doc:
            n = doc.page_count
        out.append((p, list(range(n if limit is None else min(n, limit)))))
    return out


def pymupdf_text(work):
    import pymupdf

    chars = 0
    for path, pages in work:
        with pymupdf.open(path) as doc:
            for i in pages:
                chars += len(doc[i].get_text())
    return chars, 0


def pymupdf_dict(work):
    import pymupdf

    chars = 0
    for path, pages in work:
        with pymupdf.open(path) as doc:
            for i in pages:
                d = doc[i].get_text("dict", flags=pymupdf.TEXT_MEDIABOX_CLIP)
                chars += sum(len(s["text"]) for b in d["blocks"] for l in b.get("lines", ()) for s in l["spans"])
    return chars, 0


def _find_tables(work, **kwargs):
    import pymupdf

    chars = tables = 0
    for path, pages in work:
        with pymupdf.open(path) as doc:
            for i in pages:
                page = doc[i]
                chars += len(page.get_text())
                found = page.find_tables(**kwargs)
                tables += len(found.tables)
                for t in found.tables:
                    chars += len(t.to_markdown())
    return chars, tables


def pymupdf_tables_layout(work):
    return _find_tables(work)


def pymupdf_tables_lines(work):
    return _find_tables(work, use_layout=False)


def _autofill(work, table_pages):
    from autofill.ingest.pdf import parse_pdf
    from autofill.settings import IngestSettings

    chars = tables = 0
    for path, _ in work:  # whole documents: parse_pdf has no page range
        doc = parse_pdf(path, IngestSettings(table_pages=table_pages))
        chars += sum(p.char_count for p in doc.pages)
        tables += sum(1 for p in doc.pages for b in p.blocks if b.kind == "table")
    return chars, tables


def autofill_auto(work):
    return _autofill(work, "auto")


def autofill_no_tables(work):
    return _autofill(work, "off")


def pymupdf4llm_layout(work):
    import pymupdf4llm

    chars = tables = 0
    for path, pages in work:
        for chunk in pymupdf4llm.to_markdown(str(path), pages=pages, page_chunks=True, show_progress=False):
            chars += len(chunk["text"])
            tables += chunk["text"].count("|---")
    return chars, tables


def pdfplumber_tables(work):
    import pdfplumber

    chars = tables = 0
    for path, pages in work:
        with pdfplumber.open(path) as pdf:
            for i in pages:
                page = pdf.pages[i]
                chars += len(page.extract_text() or "")
                found = page.extract_tables()
                tables += len(found)
    return chars, tables


def autofill_all_pages(work):
    return _autofill(work, "all")


# ---------------------------------------------------------------- table quality of a tighter page filter

_NEUTRAL = re.compile(r"^[$\u20ac\u00a3%()\u2013\u2014*-]+$")  # currency signs, dashes, brackets


def tight_filter(words, after_table=False) -> bool:
    """A candidate for tables.looks_tabular: only rows where two aligned numbers FOLLOW EACH OTHER (nothing
    but currency signs, dashes or brackets between them) count: table rows, not sentences with figures."""
    from autofill.ingest.tables import _NUMERIC

    lines = defaultdict(list)
    for w in words:
        lines[round(w[3] / 3)].append(w)
    rows = {}
    for key, ws in lines.items():
        toks = [w for w in sorted(ws, key=lambda w: w[0]) if not _NEUTRAL.match(w[4])]
        adjacent = set()
        for a, b in zip(toks, toks[1:]):
            if _NUMERIC.match(a[4]) and _NUMERIC.match(b[4]):
                adjacent.update((round(a[2] / 6), round(b[2] / 6)))
        if len(adjacent) >= 2:
            rows[key] = adjacent
    if after_table:
        return len(rows) >= 2
    columns = Counter()
    for cols in rows.values():
        columns.update(cols)
    aligned = lambda c: columns[c - 1] + columns[c] + columns[c + 1] >= 3  # noqa: E731
    return sum(1 for cols in rows.values() if sum(1 for c in cols if aligned(c)) >= 2) >= 3


def filter_quality(paths: list[Path], candidate=tight_filter) -> None:
    """Per file: pages the current filter (tables.looks_tabular) sends to the table finder, pages the
    candidate sends, and the tables the current detector finds on the pages the candidate would skip
    (missed tables). On the pages both send, the detector and so the cells are the same."""
    import pymupdf

    from autofill.ingest.tables import find_tables, looks_tabular

    print(f"{'file':44} {'pages':>5} {'current':>7} {'candidate':>9} {'skipped':>7} {'missed tables':>13}  (pages)")
    for path in paths:
        with pymupdf.open(path) as doc:
            current = candidate_pages = 0
            missed: list[tuple[int, int]] = []
            for i, page in enumerate(doc, start=1):
                words = page.get_text("words", flags=pymupdf.TEXT_MEDIABOX_CLIP)
                now, new = looks_tabular(words), candidate(words)
                current, candidate_pages = current + now, candidate_pages + new
                if now and not new:
                    missed.append((i, len(find_tables(page, words, "all"))))
            lost = sum(n for _, n in missed)
            print(f"{path.name[:44]:44} {doc.page_count:5d} {current:7d} {candidate_pages:9d} {len(missed):7d} "
                  f"{lost:13d}  {[p for p, n in missed if n]}", flush=True)


FAST = [pymupdf_text, pymupdf_dict, autofill_no_tables, autofill_auto]
SLOW = [pymupdf_tables_lines, pymupdf_tables_layout, pymupdf4llm_layout, pdfplumber_tables]
WHOLE = [autofill_all_pages]  # whole documents, only with --full


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="run the slow parsers on every page too")
    ap.add_argument("--sample", type=int, default=12, help="pages per file for the slow parsers")
    ap.add_argument("--only", default="", help="comma-separated approach names")
    ap.add_argument("--filter-quality", nargs="*", metavar="PDF",
                    help="table quality of the tighter page filter (tight_filter) on BHP and these PDFs")
    args = ap.parse_args(argv)
    paths = sorted(DATA.glob("*.pdf")) if DATA.is_dir() else []
    if args.filter_quality is not None:
        filter_quality(paths + [Path(p) for p in args.filter_quality])
        return 0
    if not paths:
        print(f"skipped: no PDFs in {DATA}")
        return 0
    t = time.perf_counter()
    import pymupdf  # noqa: F401  (imports the layout model's runtime too)

    print(f"import pymupdf: {time.perf_counter() - t:.2f} s")
    full = _pages(paths, None)
    sample = full if args.full else _pages(paths, args.sample)
    only = {s for s in args.only.split(",") if s}
    # CPU seconds as well as wall seconds: on a shared machine the wall clock mostly measures the
    # neighbours; CPU time (all threads of this process) is the cost of the approach itself.
    print(f"{'approach':24} {'pages':>5} {'wall s':>7} {'cpu s':>7} {'pages/s':>8} {'pages/cpu-s':>11} {'chars':>8} {'tables':>6}")
    for fn in FAST + SLOW + WHOLE:
        if (only and fn.__name__ not in only) or (fn in WHOLE and not args.full and fn.__name__ not in only):
            continue
        work = full if fn in FAST or args.full else sample
        pages = sum(len(p) for _, p in work)
        t, c = time.perf_counter(), time.process_time()
        try:
            chars, tables = fn(work)
        except ImportError as exc:
            print(f"{fn.__name__:24} skipped ({exc})")
            continue
        secs, cpu = time.perf_counter() - t, time.process_time() - c
        print(
            f"{fn.__name__:24} {pages:5d} {secs:7.2f} {cpu:7.2f} {pages / secs:8.1f} {pages / cpu:11.1f} {chars:8d} {tables:6d}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
