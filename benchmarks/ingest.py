"""Ingest benchmark: the BHP reports in ../shared/datasets/bhp/ into a temporary workspace with the real
local embedder, compared with the embedder alone on the same chunks.

    python benchmarks/ingest.py [--rounds N] [FOLDER_WITH_PDFS]

Each measurement runs in a fresh Python process, as a user's `autofill ingest` does: the ingest (cold:
model load included, as the user waits for it) and the embedder alone (parse and chunk untimed, then the
model load and the embedding timed separately). Rounds alternate the two so that load from other processes
on a shared machine hits both alike; the best round of each is reported (the least disturbed).

Prints pages/s, chunks/s, parse / embed / store seconds, the ratio end-to-end / embedder alone (target
<= 1.5) and peak RSS (target <= 1.5 GB). Exits 0 with a note when the data is absent."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "datasets" / "bhp"


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux reports KiB


def child_ingest(folder: Path) -> dict:
    from autofill.ingest.pipeline import ingest_paths
    from autofill.settings import Settings

    pdfs = sorted(folder.glob("*.pdf"))
    with tempfile.TemporaryDirectory(prefix="autofill-bench-") as tmp:
        cpu0 = os.times()
        t0 = time.perf_counter()
        report = ingest_paths(Settings(workspace=Path(tmp)), "BHP", pdfs)
        wall = time.perf_counter() - t0
        cpu1 = os.times()
    failed = [f"{f.path}: {f.error}" for f in report.files if f.status == "failed"]
    return {"wall": wall, "timings": report.timings, **report.to_json(), "failed": failed,
            "cpu_self": (cpu1.user + cpu1.system) - (cpu0.user + cpu0.system),
            "rss_self": peak_rss_mb()}


def child_embed(folder: Path) -> dict:
    from autofill.ingest.chunking import chunk_document
    from autofill.ingest.pdf import parse_pdf
    from autofill.providers.local import LocalEmbedder
    from autofill.settings import Settings

    settings = Settings()
    texts = [c.embed_text for p in sorted(folder.glob("*.pdf"))
             for c in chunk_document(parse_pdf(p, settings.ingest), "BHP", settings.ingest)]
    # What the parse helper process needs: parsing both files in a fresh process, before any model.
    rss_parse = peak_rss_mb()
    emb = LocalEmbedder(batch_size=settings.embedding.batch_size, device=settings.embedding.device)
    t0 = time.perf_counter()
    emb.load()
    load = time.perf_counter() - t0
    cpu0 = os.times()
    t0 = time.perf_counter()
    emb.embed_documents(texts)
    wall = time.perf_counter() - t0
    cpu1 = os.times()
    return {"load": load, "embed": wall, "chunks": len(texts), "rss_parse": rss_parse,
            "cpu": (cpu1.user + cpu1.system) - (cpu0.user + cpu0.system)}


def run_child(kind: str, folder: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(folder)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    if len(argv) > 1 and argv[1] == "--child":
        fn = child_ingest if argv[2] == "ingest" else child_embed
        print(json.dumps(fn(Path(argv[3]))))
        return 0
    rounds = 2
    if len(argv) > 2 and argv[1] == "--rounds":
        rounds, argv = int(argv[2]), [argv[0], *argv[3:]]
    folder = Path(argv[1]) if len(argv) > 1 else DEFAULT_DATA
    pdfs = sorted(folder.glob("*.pdf")) if folder.is_dir() else []
    if not pdfs:
        print(f"skipped: no PDFs in {folder} (the shared BHP dataset is not available here)")
        return 0

    ingests, embeds = [], []
    for i in range(rounds):
        ingests.append(run_child("ingest", folder))
        if ingests[-1]["failed"]:
            print("failed files:", *ingests[-1]["failed"], sep="\n  ")
            return 1
        embeds.append(run_child("embed", folder))
        print(f"round {i + 1}: ingest {ingests[-1]['wall']:.1f} s, embedder alone {embeds[-1]['embed']:.1f} s "
              f"(+ {embeds[-1]['load']:.1f} s load), ratio {ingests[-1]['wall'] / embeds[-1]['embed']:.2f}; "
              f"load average {os.getloadavg()[0]:.1f}", flush=True)

    ing = min(ingests, key=lambda r: r["wall"])
    emb = min(embeds, key=lambda r: r["embed"])
    load = min(r["load"] for r in embeds)
    pages, chunks, t = ing["pages"], ing["chunks"], ing["timings"]
    print()
    print(f"files                       {len(pdfs)} ({', '.join(p.name for p in pdfs)}); {os.cpu_count()} CPUs")
    print(f"pages / chunks              {pages} / {chunks}")
    print(f"end-to-end ingest           {ing['wall']:7.2f} s   {pages / ing['wall']:.2f} pages/s, "
          f"{chunks / ing['wall']:.2f} chunks/s   (best of {rounds})")
    print(f"  parse + chunk (helper)    {t['parse']:7.2f} s   {pages / max(t['parse'], 1e-9):.1f} pages/s, "
          f"overlapped with loading and embedding")
    print(f"  embed (incl. model wait)  {t['embed']:7.2f} s")
    print(f"  store (Chroma + BM25)     {t['store']:7.2f} s")
    print(f"  CPU time                  {ing['cpu_self']:7.2f} s in the ingest process (the parse helper's is "
          f"not counted: it is a child of the forkserver)")
    print(f"embedder alone              {emb['embed']:7.2f} s   {emb['chunks'] / emb['embed']:.2f} chunks/s, "
          f"CPU {emb['cpu']:.2f} s   (best of {rounds})")
    print(f"model load                  {load:7.2f} s")
    print(f"ratio end-to-end / embedder alone             {ing['wall'] / emb['embed']:.2f}   (target <= 1.5)")
    print(f"ratio end-to-end / (model load + embedding)   {ing['wall'] / (emb['embed'] + load):.2f}")
    print(f"peak RSS ingest process     {ing['rss_self']:7.0f} MB   (target <= 1536 MB)")
    rss_parse = max(r["rss_parse"] for r in embeds)
    print(f"peak RSS parse helper       {rss_parse:7.0f} MB   (parsing alone in a fresh process; both at once "
          f"at most {ing['rss_self'] + rss_parse:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv))
