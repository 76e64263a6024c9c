"""Review report on the BHP development set: time to write it, page images rendered, how many cited
passages were located and highlighted on their page, and the report's size on disk (page images are
palette PNGs; --full-colour writes PyMuPDF's own 24-bit PNGs instead, the format before, to compare).

    python benchmarks/review_report.py [--repeat 3] [--dpi 90] [--full-colour]

The filled workbook is built from the gold key (../shared/datasets/bhp/gold.json): each gold
evidence string becomes a cited ~1,000-character chunk cut from PyMuPDF's text of its page, as the
ingest chunker would, plus uncited chunks from other pages up to 6 passages per question. No model,
no store; skips when the shared data set is absent."""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autofill.review.report import write_review_report  # noqa: E402
from autofill.settings import Settings  # noqa: E402

DATA = ROOT.parent / "shared" / "datasets" / "bhp"


def build_workbook(path: Path) -> dict[str, Path]:
    import openpyxl
    import pymupdf

    gold = json.loads((DATA / "gold.json").read_text())
    pdfs = {p.name: p for p in DATA.glob("*.pdf")}
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    texts = {}
    for name, p in pdfs.items():
        with pymupdf.open(p) as doc:  # control characters Excel refuses are dropped, as the writer does
            texts[name] = [ILLEGAL_CHARACTERS_RE.sub("", " ".join(page.get_text().split())) for page in doc]

    def chunk(file: str, page: int, evidence: str) -> str:
        text = texts[file][page - 1]
        at = text.lower().find(" ".join(evidence.split()).lower()[:40])
        start = max(0, at - 300) if at >= 0 else 0
        return text[start:start + 1000]

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws.append(["No.", "Question", "Answer", "Reasoning", "Sources", "Confidence", "Status"])
    ev = wb.create_sheet("Evidence")
    ev.append(["Row", "Question", "Rank", "File", "Page", "Cited", "Score", "Text"])
    rnd = random.Random(7)
    for i, g in enumerate(gold, start=2):
        sources = []
        rank = 0
        for e in g["gold"]:
            rank += 1
            label = f"{e['file']} p. {e['page']}"
            sources.append(label) if label not in sources else None
            ev.append([i, g["question"], rank, e["file"], e["page"], "yes", 0.8, chunk(e["file"], e["page"], e["evidence"])])
        while rank < 6:
            rank += 1
            name = rnd.choice(sorted(texts))
            page = rnd.randrange(1, len(texts[name]) + 1)
            ev.append([i, g["question"], rank, name, page, "no", 0.3, texts[name][page - 1][:1000]])
        ws.append([g["no"], g["question"], g["gold_answer"], "", "; ".join(sources), "high", "Answered"])
    info = wb.create_sheet("Run info")
    info.append(["company", "BHP"])
    wb.save(path)
    return pdfs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dpi", type=int, default=90)
    ap.add_argument("--full-colour", action="store_true", help="24-bit PNG page images, for comparison")
    args = ap.parse_args()
    if not (DATA / "gold.json").is_file():
        print(f"skipped: {DATA} not found")
        return
    if args.full_colour:  # the renderer's encoder swapped for PyMuPDF's PNG writer, nothing else changed
        import autofill.review.page_images as page_images

        page_images.pixmap_to_palette_png = lambda pix, colors: pix.tobytes("png")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bhp_filled.xlsx"
        pdfs = build_workbook(out)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            report = write_review_report(Settings(workspace=Path(tmp)), out, pdf_paths=pdfs, dpi=args.dpi)
            times.append(time.perf_counter() - t0)
        html = report.read_text(encoding="utf-8")
        images = list((report.parent / "pages").glob("*.png"))
        kind = "full-colour PNG" if args.full_colour else "palette PNG"
        size = sum(p.stat().st_size for p in report.parent.rglob("*") if p.is_file())
        cited_figures = html.count("<figure>")
        highlighted = html.count("passage highlighted")
        print(f"questions: {html.count('<article class=')}, cited page figures: {cited_figures}, "
              f"highlighted: {highlighted} ({highlighted / max(cited_figures, 1):.0%}), page images: {len(images)} ({kind})")
        print(f"write_review_report: best {min(times):.2f} s, median {sorted(times)[len(times) // 2]:.2f} s "
              f"over {len(times)} runs at {args.dpi} dpi")
        print(f"report size: {size / 1e6:.1f} MB ({size / max(len(images), 1) / 1e3:.0f} kB per page image)")


if __name__ == "__main__":
    main()
