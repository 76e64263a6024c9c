"""Compare retrieval configurations on the BHP development set (../shared/datasets/bhp) with
`autofill eval`: the offline default (hybrid, one passage per page) against dense retrieval at k = 6,
and final_k 6 against 10 at k = 10, printing the eval tables (means with 95% intervals, paired differences, Wilcoxon p).

    python benchmarks/eval_compare.py [--workspace DIR]

Without --workspace both PDFs are ingested with the real local embedder into a temporary workspace
(minutes on a small CPU); with it, a workspace holding a "BHP" store is reused (ingest is incremental).
Reports, per-question tables and charts land in <workspace>/reports_out/bench-*. Skips (exit 0) when
the shared data set is absent."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "datasets" / "bhp"

COMPARISONS = [
    # "page-cap" (one passage per page against retrieval.max_per_page = 1000, no cap) went with that setting in
    # issue 44: the candidates hold one passage per page already (search/retrieval.PAGE_CHUNKS).
    ("dense", 6, {"hybrid": '[retrieval]\nmode = "hybrid"\n', "dense": '[retrieval]\nmode = "dense"\n'}),
    ("final-k", 10, {"hybrid-k6": '[retrieval]\nmode = "hybrid"\nfinal_k = 6\n',
                     "hybrid-k10": '[retrieval]\nmode = "hybrid"\nfinal_k = 10\n'}),
]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, default=None)
    args = parser.parse_args(argv)
    if not (DATA / "gold.json").is_file():
        print(f"skipped: {DATA} not found")
        return 0
    from autofill.evaluate.runner import run_eval
    from autofill.ingest.pipeline import ingest_paths
    from autofill.settings import load_settings

    with tempfile.TemporaryDirectory() as tmp:
        workspace = args.workspace or Path(tmp)
        settings = load_settings(workspace, environ={})
        t0 = time.perf_counter()
        ingest_paths(settings, "BHP", sorted(DATA.glob("*.pdf")))
        print(f"ingest: {time.perf_counter() - t0:.1f} s")
        for name, k, configs in COMPARISONS:
            folder = settings.reports_dir / f"bench-{name}"
            folder.mkdir(parents=True, exist_ok=True)
            paths = []
            for stem, text in configs.items():
                path = folder / f"{stem}.toml"
                path.write_text(text)
                paths.append(path)
            t0 = time.perf_counter()
            result = run_eval(settings, "BHP", DATA / "questionnaire.xlsx", DATA / "gold.json", configs=paths,
                              k=k, out_dir=folder)
            print(f"\n== {name} (k = {k}, {time.perf_counter() - t0:.1f} s)\n{result.describe()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
