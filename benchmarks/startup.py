"""What a command costs beyond its own work, each figure a ratio of two things measured in this run,
through the real CLI in child processes (`python -m autofill ...`, the local ONNX embedder, the loopback
OpenAI-compatible server for the model):

  1. a one-row offline `autofill run` over `autofill companies`            (target 3x or less)
  2. 60 rows at concurrency 16 with 1 s model calls over the critical path (target 1.2x or less)
     (ceil(60/16) rounds x 3 calls x 1 s = 12 s)
  3. the same run again with every model reply and query vector cached,
     over the first run                                                    (target 0.15 or less)
  4. peak RSS of the ingest and of each run                                (target under 1 GB)

    python benchmarks/startup.py [--repeats 3] [--rows 60] [--concurrency 16] [--latency 1.0] [--pdf FILE]

Commands 1 are interleaved and repeated; medians. Wall time and the child's CPU time (user + system,
from wait4) are both printed: on a shared, loaded machine wall time mostly measures the neighbours,
and the CPU ratio is the steadier figure for start-up cost. `--pdf` ingests another file than the
generated sample company report (e.g. a BHP report) for the ingest's peak memory."""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


@dataclass
class Child:
    wall: float
    cpu: float
    rss_mb: float
    stdout: str
    code: int


def measured(args: list[str], env: dict[str, str] | None = None) -> Child:
    """`python -m autofill ARGS` in a child process: its wall seconds, CPU seconds and peak RSS (wait4 on
    its PID, so each figure is that child's own)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "ANONYMIZED_TELEMETRY": "False", **(env or {})}
    out_file = tempfile.TemporaryFile(mode="w+")
    err_file = tempfile.TemporaryFile(mode="w+")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "autofill", *args], env=full_env, cwd=ROOT,
                            stdout=out_file, stderr=err_file)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    out_file.seek(0)
    err_file.seek(0)
    stdout, stderr = out_file.read(), err_file.read()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"autofill {' '.join(args)} exited {proc.returncode}:\n{stderr[-3000:]}")
    return Child(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout, proc.returncode)


def concurrent_run(root: Path, ws: list[str], server, rows: int, concurrency: int, latency: float):
    """`autofill run` of `rows` distinct questions against `server`; prints wall time over the critical
    path. Returns (the child, critical path seconds, the command, its environment) for a re-run."""
    from benchmarks.answer_latency import questions
    from tests.answer_helpers import COMPANY, MARKERS, make_questionnaire
    from tests.llm_server import by_marker

    server.responder = by_marker(MARKERS)
    many = make_questionnaire(root / "many.xlsx", questions(rows))
    env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-bench", "AUTOFILL_LLM__MODEL": "gpt-4o-mini"}
    cmd = [*ws, "run", "--company", COMPANY, "--questionnaire", str(many), "--llm", "openai", "--concurrency",
           str(concurrency), "--yes", "--json"]
    before = len(server.chat_requests())
    first = measured([*cmd, "--out", str(root / "first")], env)
    calls = len(server.chat_requests()) - before
    per_row = calls / max(1, rows)
    critical = math.ceil(rows / concurrency) * per_row * latency
    print(f"2. {rows} rows through the CLI, concurrency {concurrency}, {latency:.1f} s per call, {calls} calls "
          f"({per_row:.1f} per row): {first.wall:.2f} s wall ({first.cpu:.1f} s CPU) over a critical path of "
          f"{critical:.1f} s = {first.wall / critical:.2f}x (target 1.2x); peak RSS {first.rss_mb:.0f} MB",
          flush=True)
    return first, critical, cmd, env


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rows", type=int, default=60)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--pdf", type=Path, default=None, help="ingest this file too (peak memory of a real report)")
    args = ap.parse_args()

    from tests.answer_helpers import COMPANY, FACTS, SAMPLE, make_questionnaire
    from tests.llm_server import LLMServer
    from tests.pdf_factory import make_sample_company_pdf

    with tempfile.TemporaryDirectory(prefix="autofill-startup-") as tmp, LLMServer(latency_s=args.latency) as server:
        root = Path(tmp)
        ws = ["--workspace", str(root / "ws")]
        pdf = make_sample_company_pdf(root / SAMPLE)
        ingest = measured([*ws, "ingest", "--company", COMPANY, str(pdf), "--json"])
        print(f"ingest of the sample report: {ingest.wall:.1f} s wall, {ingest.cpu:.1f} s CPU, "
              f"peak RSS {ingest.rss_mb:.0f} MB", flush=True)
        if args.pdf:
            big = measured([*ws, "ingest", "--company", "Big", str(args.pdf), "--json"])
            print(f"ingest of {args.pdf.name}: {big.wall:.1f} s wall, {big.cpu:.1f} s CPU, "
                  f"peak RSS {big.rss_mb:.0f} MB", flush=True)

        # 1. one offline row over `companies`, interleaved
        one = make_questionnaire(root / "one.xlsx", FACTS[:1])
        comp, row = [], []
        for i in range(args.repeats):
            comp.append(measured([*ws, "companies"]))
            # The query embedding cache off: a question new to the workspace, so the model loads.
            row.append(measured([*ws, "run", "--company", COMPANY, "--questionnaire", str(one), "--llm", "none",
                                 "--fresh", "--out", str(root / "one_out"), "--json"],
                                {"AUTOFILL_EMBEDDING__QUERY_CACHE": "false"}))
        cw, rw = med([c.wall for c in comp]), med([r.wall for r in row])
        cc, rc = med([c.cpu for c in comp]), med([r.cpu for r in row])
        print(f"1. companies {cw:.2f} s wall / {cc:.2f} s CPU; one-row offline run {rw:.2f} s wall / {rc:.2f} s CPU; "
              f"ratio {rw / cw:.2f}x wall, {rc / cc:.2f}x CPU (target 3x); run peak RSS "
              f"{max(r.rss_mb for r in row):.0f} MB", flush=True)

        # 2. and 3. many rows at high concurrency, then the fully cached re-run
        first, critical, cmd, env = concurrent_run(root, ws, server, args.rows, args.concurrency, args.latency)
        calls = len(server.chat_requests())
        cached = [measured([*cmd, "--out", str(root / f"cached{i}")], env) for i in range(args.repeats)]
        assert len(server.chat_requests()) == calls, "the cached re-run called the model"
        cw2, cc2 = med([c.wall for c in cached]), med([c.cpu for c in cached])
        print(f"3. fully cached re-run {cw2:.2f} s wall ({cc2:.1f} s CPU) over the first run {first.wall:.2f} s = "
              f"{cw2 / first.wall:.3f} (target 0.15); CPU {cc2:.1f} s over {first.cpu:.1f} s; peak RSS "
              f"{max(c.rss_mb for c in cached):.0f} MB")
        print(f"4. peak RSS: ingest {ingest.rss_mb:.0f} MB, runs {max([first.rss_mb] + [c.rss_mb for c in cached + row]):.0f} MB "
              f"(target under 1024 MB)")
        print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
