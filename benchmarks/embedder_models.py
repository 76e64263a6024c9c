"""The bundled local embedding models compared on cost: each embeds the same chunk texts (the BHP
reports' chunks, ../shared/datasets/bhp, as `Chunk.embed_text` gives them) in a fresh process that
reports model load seconds, embedding wall and CPU seconds, chunks per second and peak RSS. Run it on
a quiet machine; the quality side is retrieval_reembed.py's.

    python benchmarks/embedder_models.py [--data DIR] [--limit N]

Skips (exit 0) when the data set is absent."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
DATA = ROOT.parent / "shared" / "datasets" / "bhp"

CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[3])
texts = json.load(open(sys.argv[2]))
from autofill.providers.local import LocalEmbedder
emb = LocalEmbedder(sys.argv[1])
t0 = time.monotonic(); emb.load(); load = time.monotonic() - t0
c0 = time.process_time(); t0 = time.monotonic()
emb.embed_documents(texts)
wall, cpu = time.monotonic() - t0, time.process_time() - c0
print(json.dumps({"load_s": load, "wall_s": wall, "cpu_s": cpu, "chunks_per_s": len(texts) / wall,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--limit", type=int, default=0, help="embed only the first N chunks")
    args = ap.parse_args()
    if not args.data.is_dir():
        print(f"skipped: no data at {args.data}")
        return 0
    from embedder_runtimes import _texts

    from autofill.providers.local import MODELS

    texts = _texts(args.data)
    texts = texts[:args.limit] if args.limit else texts
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "texts.json"
        path.write_text(json.dumps(texts))
        print(f"{len(texts)} chunks, mean {sum(map(len, texts)) / len(texts):.0f} characters")
        print("| model | load s | embed s (wall) | CPU s | chunks/s | peak RSS MB |\n|---|---|---|---|---|---|")
        for model in MODELS:
            out = subprocess.run([sys.executable, "-c", CHILD, model, str(path), str(ROOT)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"| {model} | {r['load_s']:.1f} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r['chunks_per_s']:.1f} "
                  f"| {r['peak_rss_mb']:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
