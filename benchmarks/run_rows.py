"""`autofill run` on a large questionnaire, offline (evidence-only drafts), through the real CLI in a
fresh process: the time the summary reports against the wall time measured around the process, and
the process's peak RSS (target under 500 MB at 5,000 rows; an earlier version peaked at 813 MB and
reported 208.9 s for 296 s of wall time, its clock stopping before the workbook and report were
written). Issue 32, shared 2-core machine, same hour: 592 MB and 405.0 s of wall time before, 378-379
MB and 301.6-355.1 s (two runs) after the Evidence rows were streamed into the saved workbook (workbook/evidence.py) and
the review report into its file (review/report.py): the peak had been the report held as one string
and its encoded copy, then the 30,000 Evidence rows as openpyxl cells.

    python benchmarks/run_rows.py [ROWS]     (default 5000)
    python benchmarks/run_rows.py --report R.pdf --questionnaire Q.xlsx [--workspace DIR] [--set KEY=VALUE ...]

With --report, a real report is ingested with the default (bundled, local) embedder and its own
questionnaire answered offline: what a user's first offline run costs (the query cache off, so every
row's question is embedded as on a first run). `--set retrieval.second_stage=none` (any setting, as
AUTOFILL_<SECTION>__<FIELD>) measures a choice against the default; `--workspace` keeps the ingested
store between measurements (each run is still a fresh process). Issue 44, BHP Climate Change Report
2020 (48 pages) and its 16-row questionnaire, shared 2-core machine: see the README.

Without --report, the evidence store is one generated report ingested with embeddings from the tests' loopback
OpenAI-compatible server (deterministic hash vectors, no model download), so the numbers measure
autofill's own work per row: retrieval, drafting, checks, the workbook and the review report."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def run_cli(workspace: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autofill", "--workspace", str(workspace), *args], env=env,
                          cwd=workspace, capture_output=True, text=True)


def measure(cmd: list[str], env: dict, cwd: Path) -> tuple[str, str, int, float, float, float]:
    """(stdout, stderr, exit code, wall seconds, peak RSS MB, CPU seconds) of one fresh process (its own
    rusage: on a shared machine its CPU seconds say more than its wall time)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        child = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        return (out.read(), err.read(), os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss / 1024,
                usage.ru_utime + usage.ru_stime)


def real_report(argv: list[str]) -> int:
    """A real report and its questionnaire, offline, with the default embedder (see the docstring)."""
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--report", type=Path, required=True)
    ap.add_argument("--questionnaire", type=Path, required=True)
    ap.add_argument("--workspace", type=Path, default=None)
    ap.add_argument("--set", action="append", default=[], help="section.field=value, as AUTOFILL_SECTION__FIELD")
    args = ap.parse_args(argv[1:])
    with tempfile.TemporaryDirectory() as tmp:
        ws = args.workspace or Path(tmp)
        ws.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "COHERE_", "AUTOFILL_"))}
        env.update({"PYTHONPATH": str(ROOT), "AUTOFILL_LLM__PROVIDER": "none", "HF_HUB_OFFLINE": "1",
                    "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"})
        proc = run_cli(ws, env, "ingest", "--company", "Bench Co", str(args.report))
        assert proc.returncode == 0, proc.stderr
        run_env = {**env, "AUTOFILL_EMBEDDING__QUERY_CACHE": "false"}
        for item in args.set:
            key, _, value = item.partition("=")
            section, _, name = key.partition(".")
            run_env[f"AUTOFILL_{section.upper()}__{name.upper()}"] = value
        out_dir = ws / f"out-{os.getpid()}"
        cmd = [sys.executable, "-m", "autofill", "--workspace", str(ws), "run", "--company", "Bench Co",
               "--questionnaire", str(args.questionnaire), "--out", str(out_dir), "--fresh"]
        out, err, code, wall, peak, cpu = measure(cmd, run_env, ws)
        if code not in (0, 1):
            print(err[-3000:])
            return 1
        m = re.search(r"(\d+) question rows, .* in ([\d.]+) s", out)
        rows, reported = (int(m.group(1)), float(m.group(2))) if m else (0, float("nan"))
        print(out.strip().splitlines()[0] if out.strip() else err.strip()[-500:])
        print(json.dumps({"report": args.report.name, "rows": rows, "set": args.set, "reported_s": reported,
                          "wall_s": round(wall, 1), "s_per_row": round(wall / rows, 2) if rows else None,
                          "cpu_s": round(cpu, 1), "peak_rss_mb": round(peak)}))
    return 0


def main(argv: list[str]) -> int:
    import resource

    if "--report" in argv:
        return real_report(argv)
    from tests.llm_server import LLMServer
    from tests.pdf_factory import make_text_pdf
    from workbook import build

    n = int(argv[1]) if len(argv) > 1 else 5000
    with tempfile.TemporaryDirectory() as tmp, LLMServer() as server:
        ws = Path(tmp)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-x",
               "AUTOFILL_EMBEDDING__PROVIDER": "openai", "AUTOFILL_LLM__PROVIDER": "none"}
        (ws / "docs").mkdir()
        make_text_pdf(ws / "docs" / "report.pdf",
                      [f"Section {i}. The company discloses item {i}: policy, target and progress in FY2024, "
                       f"with {i * 3}% of sites covered. " * 6 for i in range(1, 41)])
        proc = run_cli(ws, env, "ingest", "--company", "Bench Co", "docs")
        assert proc.returncode == 0, proc.stderr
        build(ws / "large.xlsx", n)
        cmd = [sys.executable, "-m", "autofill", "--workspace", str(ws), "run", "--company", "Bench Co",
               "--questionnaire", "large.xlsx"]
        t0 = time.perf_counter()
        child = subprocess.Popen(cmd, env=env, cwd=ws, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = child.stdout.read()
        err = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t0
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode not in (0, 1):
            print(err[-3000:])
            return 1
        m = re.search(r"question rows, .* in ([\d.]+) s", out)
        reported = float(m.group(1)) if m else float("nan")
        peak = usage.ru_maxrss / 1024  # Linux: KiB
        print(out.strip().splitlines()[0])
        print(json.dumps({"rows": n, "reported_s": reported, "wall_s": round(wall, 1),
                          "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
                          "unreported_s": round(wall - reported, 1), "peak_rss_mb": round(peak),
                          "self_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
