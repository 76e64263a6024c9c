"""Ingest benchmark: the BHP reports in ../shared/datasets/bhp/ into a temporary workspace, with the real
local embedder, then the embedder alone on the same chunks.

    python benchmarks/ingest.py [FOLDER_WITH_PDFS]

Prints pages/s, chunks/s, parse / embed / store seconds, the embedder-alone time, the ratio end-to-end /
embedder-alone (target <= 1.5) and peak RSS (target <= 1.5 GB). Exits 0 with a note when the data is absent.
End-to-end is what a user waits for from a cold process: it includes loading the model (overlapped with
parsing by the pipeline); the embedder-alone figure is given both warm (model loaded) and with the load."""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "datasets" / "bhp"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else DEFAULT_DATA
    pdfs = sorted(folder.glob("*.pdf")) if folder.is_dir() else []
    if not pdfs:
        print(f"skipped: no PDFs in {folder} (the shared BHP dataset is not available here)")
        return 0

    from autofill.ingest.chunking import chunk_document
    from autofill.ingest.pdf import parse_pdf
    from autofill.ingest.pipeline import ingest_paths
    from autofill.providers.local import LocalEmbedder, load_model
    from autofill.settings import Settings

    with tempfile.TemporaryDirectory(prefix="autofill-bench-") as tmp:
        settings = Settings(workspace=Path(tmp))
        embedder = LocalEmbedder(batch_size=settings.embedding.batch_size, device=settings.embedding.device)

        t0 = time.perf_counter()
        report = ingest_paths(settings, "BHP", pdfs, embedder=embedder)
        end_to_end = time.perf_counter() - t0
        rss_after_ingest = peak_rss_mb()
        data = report.to_json()
        failed = [f for f in report.files if f.status == "failed"]
        if failed:
            for f in failed:
                print(f"failed: {f.path}: {f.error}")
            return 1

        # The embedder alone on exactly the chunks the ingest stored (model already loaded: warm).
        chunks = [c for p in pdfs for c in chunk_document(parse_pdf(p, settings.ingest), "BHP", settings.ingest)]
        texts = [c.embed_text for c in chunks]
        t0 = time.perf_counter()
        embedder.embed_documents(texts)
        embed_warm = time.perf_counter() - t0

        # Model load on its own, in a fresh interpreter, for the cold comparison.
        import subprocess

        code = ("import time; t=time.perf_counter(); from autofill.providers.local import load_model; "
                "load_model(); print(time.perf_counter()-t)")
        load_s = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                      check=True).stdout.strip().splitlines()[-1])
        _ = load_model  # loaded already in this process

    pages, n_chunks = data["pages"], data["chunks"]
    t = report.timings
    print(f"files                      {len(pdfs)} ({', '.join(p.name for p in pdfs)})")
    print(f"pages / chunks             {pages} / {n_chunks}")
    print(f"end-to-end ingest          {end_to_end:7.2f} s   ({pages / end_to_end:.1f} pages/s, "
          f"{n_chunks / end_to_end:.1f} chunks/s)")
    print(f"  parse+chunk              {t['parse']:7.2f} s   ({pages / max(t['parse'], 1e-9):.1f} pages/s)")
    print(f"  embed (incl. wait for model load) {t['embed']:7.2f} s")
    print(f"  store (Chroma + BM25)    {t['store']:7.2f} s")
    print(f"embedder alone, warm       {embed_warm:7.2f} s   ({n_chunks / embed_warm:.1f} chunks/s)")
    print(f"model load, fresh process  {load_s:7.2f} s")
    print(f"ratio end-to-end / embedder alone (warm)         {end_to_end / embed_warm:.2f}   (target <= 1.5)")
    print(f"ratio end-to-end / embedder alone (incl. load)   {end_to_end / (embed_warm + load_s):.2f}")
    print(f"peak RSS                   {rss_after_ingest:7.0f} MB after ingest, {peak_rss_mb():.0f} MB overall "
          f"(target <= 1536 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
