"""The plain-fusion bar (evaluate/plain_fusion.py): 1,000-character page windows, the real local embedder
and BM25 fused by RRF, read as distinct pages, scored like the product; cached by the PDF's hash."""

from __future__ import annotations

import json

import pytest

from autofill.evaluate import plain_fusion
from autofill.evaluate.gold import load_gold
from autofill.providers.local import LocalEmbedder
from tests.pdf_factory import make_pdf


def test_windows_cut_page_text_in_1000_characters():
    text = "word " * 450  # 2,250 characters with spaces, 2,249 collapsed
    parts = plain_fusion.windows(text)
    assert [len(p) for p in parts] == [1000, 1000, 249]
    assert plain_fusion.windows("  \n ") == []


@pytest.mark.slow
def test_finds_the_gold_pages_and_scores_them(tmp_path):
    pdf = make_pdf(tmp_path / "report.pdf", [
        [("h1", "Our people"), ("p", "Women held 38% of senior leadership roles at the end of the year.")],
        [("h1", "Emissions"), ("table", ["t CO2e", "2024"], [["Direct emissions (Scope 1)", "2,973,646"]])],
        [("h1", "Water"), ("p", "We withdrew 12.4 million cubic metres of water, mostly from rivers.")],
    ] + [[("p", f"Community sponsorship and road upgrade number {i} near the rail siding.")] for i in range(8)])
    (tmp_path / "gold.json").write_text(json.dumps([
        {"no": 1, "question": "What were the Scope 1 emissions?", "gold": [{"file": "report.pdf", "page": 2}]},
        {"no": 2, "question": "How much water was withdrawn?", "gold": [{"file": "report.pdf", "page": 3}]},
        {"no": 3, "question": "Share of women in senior leadership?", "gold": [{"file": "report.pdf", "page": 1}]},
    ]))
    embedder = LocalEmbedder()
    index = plain_fusion.PlainIndex.build([pdf], embedder, tmp_path / "cache")
    assert len(index.texts) == 11 and index.keys[1] == ("report.pdf", 2)
    pages = index.pages(embedder, "What were the Scope 1 emissions?", 30)
    assert pages[0] == ("report.pdf", 2) and len(pages) == len(set(pages)) == 11
    rows = plain_fusion.evaluate(index, embedder, load_gold(tmp_path / "gold.json"), "Co", k=6, pool=30)
    assert [r["hit6"] for r in rows] == [1.0, 1.0, 1.0] and rows[0]["mrr"] == 1.0
    assert rows[0]["company"] == "Co" and rows[0]["number"] == "1"
    # Cached by the PDF's hash: the second build embeds nothing.
    cached = list((tmp_path / "cache").glob("*.npz"))
    assert len(cached) == 1

    class Refuses:
        name = embedder.name

        def embed_documents(self, texts):
            raise AssertionError("embedded again")

    again = plain_fusion.PlainIndex.build([pdf], Refuses(), tmp_path / "cache")
    assert again.keys == index.keys and again.texts == index.texts
