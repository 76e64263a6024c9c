"""PyMuPDF imported for reading and rendering without building its layout model (autofill/pdflib.py):
the model is not loaded at import, and a parse after it (a portfolio run ingests in the same process)
finds exactly the tables the eager import finds. Each side runs in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "northwind_sustainability_2024.pdf"

PARSE = """
import json, sys
{first}
from autofill.ingest.pdf import parse_pdf
from autofill.settings import IngestSettings
lazy = 'pymupdf.layout' not in sys.modules
doc = parse_pdf(sys.argv[1], IngestSettings(ocr=False))
print(json.dumps({{"lazy_at_import": lazy, "layout_loaded": 'pymupdf.layout' in sys.modules,
                  "blocks": [[p.page, b.kind, b.text] for p in doc.pages for b in p.blocks]}}))
"""


def _parse(first: str, pdf: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", PARSE.format(first=first), str(pdf)], cwd=ROOT, check=True,
                         capture_output=True, text=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_layout_model_waits_for_its_first_use_and_finds_the_same_tables(tmp_path):
    import importlib.util

    eager = _parse("import pymupdf", SAMPLE)
    lazy = _parse("from autofill.pdflib import import_pymupdf; import_pymupdf()", SAMPLE)
    assert lazy["blocks"] == eager["blocks"]
    assert any(kind == "table" for _, kind, _ in eager["blocks"])
    if importlib.util.find_spec("pymupdf.layout") is not None:
        assert lazy["lazy_at_import"] and not eager["lazy_at_import"]
        assert lazy["layout_loaded"]  # table detection asked for it, and got the same model


def test_an_already_imported_pymupdf_is_returned_as_it_is():
    import pymupdf

    from autofill.pdflib import import_pymupdf

    assert import_pymupdf() is pymupdf
