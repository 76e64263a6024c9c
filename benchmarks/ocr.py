"""OCR speed and retrieval from page images on the BHP development set (../shared/datasets/bhp).

    nice -n 10 python benchmarks/ocr.py [--dpi 150] [--files "BHP Climate Transition Action Plan.pdf"]

--files limits both ingests to some of the reports, and the scores to the questions with gold pages
in them (on a shared 2-core machine OCR of all 75 pages takes long).

1. Ingests the reports as they are (text layer, OCR of image pages and large images on) and counts the
   pages OCR read (the set's image pages: CTAP pp. 26-27, CCR p. 48).
2. Rasterises the same reports to image-only PDFs at --dpi (same file names, so gold.json's pages
   apply), ingests those (every page OCR'd), and reports OCR pages per second of parse time.
3. Answers the questionnaire offline from both stores and compares page hit@6, recall@6 and MRR of
   the Evidence sheets against gold.json (the same functions as benchmarks/retrieval_quality.py).

Skips (exit 0) when the shared data set is absent or Tesseract is not installed."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
DATA = next((d for d in (ROOT.parent / "shared" / "datasets" / "bhp", ROOT.parents[1] / "shared" / "datasets" / "bhp")
             if d.is_dir()), ROOT.parent / "shared" / "datasets" / "bhp")  # a worktree sits one level deeper


def rasterise(src: Path, dst: Path, dpi: int) -> int:
    """An image-only copy of `src`: every page replaced by its rendering at `dpi`."""
    import pymupdf

    with pymupdf.open(src) as doc, pymupdf.open() as out:
        for page in doc:
            pix = page.get_pixmap(dpi=dpi, alpha=False)
            new = out.new_page(width=page.rect.width, height=page.rect.height)
            new.insert_image(new.rect, stream=pix.tobytes("jpeg", jpg_quality=85))
        out.save(dst, garbage=3, deflate=True)
        return out.page_count


def ingest_and_score(workspace: Path, files: list[Path], gold, label: str) -> dict:
    from retrieval_quality import evidence_passages, line, score

    from autofill.answer.pipeline import run_questionnaire
    from autofill.ingest.pipeline import ingest_paths
    from autofill.settings import load_settings

    settings = load_settings(workspace, environ={})  # offline whatever the shell exports
    t0 = time.monotonic()
    rep = ingest_paths(settings, "BHP", files)
    data = rep.to_json()
    print(f"{label}: ingest {data} in {time.monotonic() - t0:.0f} s; timings {rep.timings}", flush=True)
    report = run_questionnaire(settings, "BHP", DATA / "questionnaire.xlsx", out_dir=workspace / "out")
    hit, recall, mrr, per = score(evidence_passages(report.output), gold)
    print(line(label, hit, recall, mrr), flush=True)
    return {"ingest": data, "parse_s": rep.timings.get("parse", 0.0), "hit": hit, "recall": recall, "mrr": mrr,
            "per": per}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dpi", type=int, default=150)
    ap.add_argument("--files", nargs="*", default=None, help="file names in the data set (default: all PDFs)")
    args = ap.parse_args()
    if not (DATA / "gold.json").is_file():
        print(f"skipped: {DATA} not found")
        return 0
    from autofill.evaluate.gold import load_gold
    from autofill.ingest import ocr

    if not ocr.available():
        print("skipped: Tesseract is not installed (scripts/install_ocr.sh)")
        return 0
    gold = load_gold(DATA / "gold.json")
    files = [DATA / f for f in args.files] if args.files else sorted(DATA.glob("*.pdf"))
    names = {f.name for f in files}
    for item in gold.items:  # with --files, only the gold pages those files hold count (both sides alike)
        item.pages = [p for p in item.pages if p.file in names]
    print(f"{len([i for i in gold.items if i.pages])} questions with gold pages in {sorted(names)}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        text = ingest_and_score(tmp / "text", files, gold, "text layer (+ OCR of image pages)")
        (tmp / "raster").mkdir()
        pages = sum(rasterise(f, tmp / "raster" / f.name, args.dpi) for f in files)
        images = ingest_and_score(tmp / "images", sorted((tmp / "raster").glob("*.pdf")), gold,
                                  f"page images at {args.dpi} dpi (all OCR)")
        print(f"OCR speed: {images['ingest']['ocr_pages']} of {pages} pages OCR'd, parse {images['parse_s']:.0f} s "
              f"-> {images['ingest']['ocr_pages'] / max(images['parse_s'], 1e-9):.3f} pages/s "
              f"({images['parse_s'] / max(images['ingest']['ocr_pages'], 1):.1f} s a page)")
        print("Per question (text -> images), where they differ:")
        for (item, a), (_, b) in zip(text["per"], images["per"]):
            if (a.hit, a.recall, a.mrr) != (b.hit, b.recall, b.mrr):
                print(f"  Q{item.number:>2} hit {a.hit:.0f}->{b.hit:.0f} recall {a.recall:.2f}->{b.recall:.2f} "
                      f"rr {a.mrr:.2f}->{b.mrr:.2f}  {item.question[:60]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
