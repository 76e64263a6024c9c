"""Import races in threaded runs: N fresh-process `autofill run`s (cold imports, concurrency 8, the
response cache off so every row calls the loopback OpenAI-compatible model while a background thread
opens the store's Chroma) with the CPUs idle, then N with every CPU saturated by busy loops started
before and stopped after each run. Prints failed and unparsed rows per phase (target 0) and the
errors seen.

    python benchmarks/import_race.py [--runs 30] [--rows 15] [--concurrency 8]

Issue 22 saw `partially initialized module 'httpx' has no attribute 'Timeout'` in 5 of 9 runs. The
cause (autofill/imports.py): openai 3.x reads the legacy httpx from sys.modules on every request while
chromadb's import of httpx was still running in another thread."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def phase(name: str, runs: int, busy: bool, ws, questionnaire, root: Path, base_url: str, concurrency: int) -> None:
    from tests.race_helpers import busy_cpus, run_once

    failed_runs, failed_rows, unparsed, errors, seconds = 0, 0, 0, Counter(), []
    for i in range(runs):
        if busy:
            with busy_cpus():
                o = run_once(ws, questionnaire, root / f"{name}{i}", base_url, concurrency)
        else:
            o = run_once(ws, questionnaire, root / f"{name}{i}", base_url, concurrency)
        seconds.append(o.seconds)
        bad = max(o.failed, 0) + o.unparsed
        failed_runs += bool(bad or o.code)
        failed_rows += max(o.failed, 0)
        unparsed += o.unparsed
        errors.update(e[:120] for e in o.errors)
        print(f"  {name} run {i + 1}: exit {o.code}, {o.answered} answered, {o.failed} failed, {o.unparsed} unparsed, "
              f"{o.seconds:.1f} s", flush=True)
    print(f"{name}: {failed_runs} of {runs} runs with failed rows; {failed_rows} failed and {unparsed} unparsed rows "
          f"in all; median {sorted(seconds)[len(seconds) // 2]:.1f} s per run", flush=True)
    for error, n in errors.most_common(5):
        print(f"    {n} x {error}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rows", type=int, default=15)
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args()
    from tests.answer_helpers import MARKERS
    from tests.llm_server import LLMServer, by_marker
    from tests.race_helpers import ingested_workspace, many_rows

    with tempfile.TemporaryDirectory(prefix="autofill-race-") as tmp, LLMServer(latency_s=0.05) as server:
        root = Path(tmp)
        server.responder = by_marker(MARKERS)
        t0 = time.monotonic()
        ws = ingested_workspace(root)
        print(f"workspace ingested in {time.monotonic() - t0:.1f} s; {args.rows} rows per run, concurrency "
              f"{args.concurrency}, {os.cpu_count()} CPUs", flush=True)
        questionnaire = many_rows(root, args.rows)
        phase("idle", args.runs, False, ws, questionnaire, root, server.base_url, args.concurrency)
        phase("saturated", args.runs, True, ws, questionnaire, root, server.base_url, args.concurrency)
        print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
