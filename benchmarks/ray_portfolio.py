"""`autofill batch` with the local engine against `--engine ray` (a local Ray instance) on this machine:
wall time, CPU seconds and peak memory of the whole process tree (the CLI, its parse helpers, and for
Ray its GCS, raylet and workers), and whether both fill the same workbooks (Answer, Reasoning, Sources and
Status cell for cell). Offline: no model (evidence-only drafts), the local ONNX embedder.

    python benchmarks/ray_portfolio.py                 # 20 generated companies (tests' PDF factory)
    python benchmarks/ray_portfolio.py --companies 5
    python benchmarks/ray_portfolio.py --real          # BHP (2 reports) + 2 financebench-dev filings,
                                                       # BHP's questionnaire (skipped when absent)
    python benchmarks/ray_portfolio.py --overhead      # Ray's own cost per task (no-op tasks)

Run it niced on a shared machine; figures go to docs/SCALE.md."""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATASETS = Path(os.environ.get("AUTOFILL_DATASETS", "/work/shared/datasets"))
sys.path.insert(0, str(ROOT))


def generated_portfolio(root: Path, companies: int) -> Path:
    from tests.answer_helpers import make_questionnaire
    from tests.pdf_factory import make_sample_company_pdf

    make_questionnaire(root / "questionnaire.xlsx")
    rows = []
    for i in range(companies):
        folder = root / "reports" / f"c{i:03d}"
        folder.mkdir(parents=True)
        make_sample_company_pdf(folder / f"Company {i} report 2024.pdf")
        rows.append({"company": f"Company {i:03d}", "reports": f"reports/{folder.name}",
                     "questionnaire": "questionnaire.xlsx"})
    return _manifest(root, rows)


def real_portfolio(root: Path) -> Path | None:
    bhp, fb = DATASETS / "bhp", DATASETS / "financebench-dev"
    filings = [fb / "AMCOR_2023Q4_EARNINGS" / "AMCOR_2023Q4_EARNINGS.pdf",
               fb / "JOHNSON_JOHNSON_2022Q4_EARNINGS" / "JOHNSON_JOHNSON_2022Q4_EARNINGS.pdf"]
    if not (bhp / "questionnaire.xlsx").is_file() or not all(f.is_file() for f in filings):
        return None
    q = str(bhp / "questionnaire.xlsx")
    rows = [{"company": "BHP", "reports": str(bhp / "*.pdf"), "questionnaire": q},
            {"company": "Amcor", "reports": str(filings[0]), "questionnaire": q},
            {"company": "Johnson & Johnson", "reports": str(filings[1]), "questionnaire": q}]
    return _manifest(root, rows)


def _manifest(root: Path, rows: list[dict[str, str]]) -> Path:
    path = root / "portfolio.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["company", "reports", "questionnaire"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def run_batch(workspace: Path, manifest: Path, engine: str) -> dict:
    """The CLI in a fresh process; its whole process tree sampled every 0.2 s (psutil)."""
    import psutil

    env = {**os.environ, "AUTOFILL_LLM__PROVIDER": "none", "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1",
           "ANONYMIZED_TELEMETRY": "False", "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    cmd = [sys.executable, "-m", "autofill", "--workspace", str(workspace), "batch", str(manifest), "--json",
           "--engine", engine]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    root = psutil.Process(proc.pid)
    cpu: dict[int, float] = {}
    peak = 0
    while proc.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        rss = 0
        for p in tree:
            try:
                t = p.cpu_times()
                cpu[p.pid] = max(cpu.get(p.pid, 0.0), t.user + t.system)
                rss += p.memory_info().rss
            except psutil.Error:
                continue
        peak = max(peak, rss)
        time.sleep(0.2)
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1) or not out.strip():
        raise SystemExit(f"{engine} run failed ({proc.returncode}):\n{err[-3000:]}")
    data = json.loads(out.strip().splitlines()[-1])
    return {"engine": engine, "wall_s": round(wall, 1), "cpu_s": round(sum(cpu.values()), 1),
            "peak_mb": round(peak / 2**20), "processes": len(cpu), "json": data}


def cells(path: str) -> list[tuple]:
    from autofill.review.reader import read_filled_workbook

    return [(q.key, q.answer, q.reasoning, q.sources, q.status) for q in read_filled_workbook(Path(path)).questions]


def compare(local: dict, ray_run: dict) -> tuple[int, int, list[str]]:
    """(rows compared, rows identical, companies that differ)."""
    rows = same = 0
    differ = []
    for company, path in local["json"]["outputs"].items():
        want, got = cells(path), cells(ray_run["json"]["outputs"][company])
        rows += len(want)
        same += sum(1 for a, b in zip(want, got) if a == b)
        if want != got:
            differ.append(company)
    return rows, same, differ


def overhead(tasks: int = 200) -> dict:
    """Ray's cost per task on this machine: start-up, and no-op tasks one at a time and all at once."""
    import logging

    import ray

    t = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", logging_level=logging.WARNING)
    start = time.perf_counter() - t

    @ray.remote
    def noop(x):
        return x

    ray.get([noop.remote(i) for i in range(20)])  # warm the worker pool
    t = time.perf_counter()
    for i in range(tasks):
        ray.get(noop.remote(i))
    serial = (time.perf_counter() - t) / tasks
    t = time.perf_counter()
    ray.get([noop.remote(i) for i in range(tasks)])
    batched = (time.perf_counter() - t) / tasks
    t = time.perf_counter()
    ray.shutdown()
    return {"init_s": round(start, 2), "task_round_trip_ms": round(serial * 1000, 2),
            "task_throughput_ms": round(batched * 1000, 2), "shutdown_s": round(time.perf_counter() - t, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--companies", type=int, default=20)
    ap.add_argument("--real", action="store_true", help="BHP + two financebench-dev filings (done-when run)")
    ap.add_argument("--overhead", action="store_true", help="only Ray's per-task overhead")
    ap.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it")
    ap.add_argument("--engines", default="local,ray", help="which runs (a run kept in --keep is reused)")
    args = ap.parse_args()
    if args.overhead:
        print(json.dumps(overhead()))
        return
    root = args.keep or Path(tempfile.mkdtemp(prefix="ray-portfolio-"))
    root.mkdir(parents=True, exist_ok=True)
    kept = root / "portfolio.csv"
    manifest = kept if kept.is_file() else real_portfolio(root) if args.real else generated_portfolio(root, args.companies)
    if manifest is None:
        print(f"skipped: the data sets are not in {DATASETS}")
        return
    runs = {}
    for engine in ("local", "ray"):
        ws = root / f"ws-{engine}"
        saved = root / f"run-{engine}.json"
        if engine in args.engines.split(","):
            shutil.rmtree(ws, ignore_errors=True)
            ws.mkdir()
            saved.write_text(json.dumps(run_batch(ws, manifest, engine)))
        runs[engine] = r = json.loads(saved.read_text())
        print(f"{engine:<6} wall {r['wall_s']:>7.1f} s  cpu {r['cpu_s']:>7.1f} s  peak {r['peak_mb']:>6} MB  "
              f"({r['processes']} processes)  companies {r['json']['companies']}, failed {r['json']['failed']}, "
              f"documents {r['json']['new_documents']}, drafted {r['json']['drafted']}, engine "
              f"{r['json']['engine']!r}", flush=True)
    rows, same, differ = compare(runs["local"], runs["ray"])
    print(f"workbooks: {same}/{rows} question rows identical (Answer, Reasoning, Sources, Status)"
          + (f"; differ: {', '.join(differ)}" if differ else ""))
    print(json.dumps({e: {k: v for k, v in r.items() if k != "json"} for e, r in runs.items()}))


if __name__ == "__main__":
    main()
