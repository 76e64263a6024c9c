"""Which development-set reports print a content index with page numbers (frameworks/content_index.py),
and, where one does, whether the pages it names for a question's datapoints hold the gold evidence.

    python benchmarks/frameworks_content_index.py DIR_OR_PDF ...     (PDFs found recursively)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    from autofill.frameworks.coverage import default_mapper
    from autofill.ingest.chunking import chunk_document
    from autofill.frameworks.content_index import read_index
    from autofill.ingest.pdf import parse_pdf
    from autofill.settings import Settings

    settings = Settings()
    pdfs = [p for a in argv for p in (sorted(Path(a).rglob("*.pdf")) if Path(a).is_dir() else [Path(a)])]
    quotes = default_mapper().quoted
    print("| report | pages | index rows found | requirements with pages |")
    print("| --- | --- | --- | --- |")
    for pdf in pdfs:
        doc = parse_pdf(pdf, settings.ingest)
        chunks = chunk_document(doc, "x", settings.ingest)
        index = read_index(chunks, quotes, doc.page_count)
        print(f"| {pdf.name} | {doc.page_count} | {sum(len(v) for v in index.values())} | "
              f"{', '.join(f'{k}: {v}' for k, v in sorted(index.items())) or '-'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
