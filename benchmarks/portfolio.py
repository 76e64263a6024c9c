"""Portfolio scale: N generated companies (a small generated PDF each) x Q questions through
`run_portfolio` against the loopback OpenAI-compatible server with a fixed latency per call.

    nice -n 10 python benchmarks/portfolio.py                       # 10 and 50 companies, embedded store
    nice -n 10 python benchmarks/portfolio.py --sizes 50 --chroma-server   # against a real `chroma run`
    python benchmarks/portfolio.py --one 50 [--chroma-url URL]      # one size, JSON (used by the above)

Reports, per size: wall time of the whole batch (ingest, rows, every company's workbook and review
report, the portfolio workbook and index) against the critical path the shared concurrency limit
allows, ceil(rows / concurrency) x calls per row x latency; the highest number of requests the server
saw in flight; and the peak resident memory of the process (each size runs in its own process, so
the peaks compare: flat in the number of companies means stores are not all held).

Retrieval uses the deterministic FakeEmbedder from tests/ (embedding is not what is measured; the
loopback latency would otherwise apply to query embeddings too). The loopback server runs in its own
process, as a real API would: its request parsing and scripted replies do not compete with the run
for this process's interpreter lock. Runs offline."""

from __future__ import annotations

import argparse
import json
import math
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _questions(n: int):
    from tests.answer_helpers import FACTS, Fact

    return [Fact(f"{f.question[:-1]} (item {i + 1})?", f.form, f.dropdown, f.phrase, f.page, f.answer)
            for i, f in enumerate((FACTS * n)[:n])]


def _company_pdf(path: Path, name: str, seed: int) -> Path:
    from tests.answer_helpers import FACTS, filler_texts
    from tests.pdf_factory import make_text_pdf

    facts = " ".join(f.phrase.strip("| ") + "." for f in FACTS)
    pages = [f"{name} sustainability report 2024. {facts}"] + filler_texts(pages=3, seed=seed)
    return make_text_pdf(path, pages)


def serve(latency: float, folder: Path) -> None:
    """The loopback server in this process until SIGTERM; then its request log to folder/requests.json."""
    import signal
    import threading

    from tests.answer_helpers import MARKERS
    from tests.llm_server import LLMServer, by_marker

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with LLMServer(latency_s=latency, responder=by_marker(MARKERS)) as server:
        (folder / "port.tmp").write_text(server.base_url)
        (folder / "port.tmp").rename(folder / "port")
        done.wait()
        log = [{"route": r.route, "started": r.started, "finished": r.finished} for r in server.requests]
        (folder / "requests.json").write_text(json.dumps({"requests": log, "max_in_flight": server.max_in_flight}))


class ServerProcess:
    def __init__(self, latency: float, folder: Path) -> None:
        self.folder = folder
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", str(folder), "--latency", str(latency)])
        deadline = time.monotonic() + 120
        while not (folder / "port").exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the loopback server did not start")
            time.sleep(0.1)
        self.base_url = (folder / "port").read_text()

    def stop(self) -> dict:
        self.proc.terminate()
        self.proc.wait(timeout=60)
        return json.loads((self.folder / "requests.json").read_text())


def one(companies: int, questions: int, latency: float, concurrency: int, chroma_url: str) -> dict:
    from autofill.portfolio.runner import prepare, run_portfolio
    from autofill.settings import Settings
    from tests.answer_helpers import make_questionnaire
    from tests.fakes import FakeEmbedder

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "server").mkdir()
        server = ServerProcess(latency, root / "server")
        make_questionnaire(root / "questionnaire.xlsx", _questions(questions))
        lines = ["company,reports,questionnaire"]
        for i in range(companies):
            name = f"Company {i + 1:03d}"
            folder = root / "reports" / f"c{i + 1:03d}"
            folder.mkdir(parents=True)
            _company_pdf(folder / f"c{i + 1:03d} report 2024.pdf", name, seed=i)
            lines.append(f"{name},reports/c{i + 1:03d},questionnaire.xlsx")
        (root / "portfolio.csv").write_text("\n".join(lines) + "\n")
        s = Settings(workspace=root / "ws")
        s.llm.provider, s.llm.base_url, s.llm.api_key, s.llm.model = "openai", server.base_url, "sk-bench", "gpt-4o-mini"
        s.llm.cache = False
        s.llm.concurrency = concurrency
        s.store.chroma_url = chroma_url
        t0 = time.monotonic()
        prepared = prepare(s, root / "portfolio.csv")
        t_plan = time.monotonic() - t0
        try:
            report = run_portfolio(s, prepared, embedder=FakeEmbedder())
        finally:
            log = server.stop()
        t_end = time.monotonic()
        wall = t_end - t0
        data = report.to_json()
        reqs = [r for r in log["requests"] if r["route"] == "chat"]
        chat = len(reqs)
        in_flight = log["max_in_flight"]
        # Where the time went: before the first call, while calls ran (how full the slots were), after.
        # (CLOCK_MONOTONIC is one clock for every process of the machine.)
        first = min(r["started"] for r in reqs)
        last = max(r["finished"] for r in reqs)
        busy = sum(r["finished"] - r["started"] for r in reqs) / (last - first)
    rows = data["rows"]
    per_row = chat / max(1, rows)
    critical = math.ceil(rows / concurrency) * per_row * latency
    return {"companies": companies, "rows": rows, "answered": data["answered"], "failed": data["failed"],
            "failed_rows": data["failed_rows"], "chat_calls": chat, "calls_per_row": round(per_row, 2),
            "wall_s": round(wall, 1), "plan_s": round(t_plan, 1), "critical_s": round(critical, 1),
            "ratio": round(wall / critical, 3) if critical else None, "max_in_flight": in_flight,
            "before_first_call_s": round(first - t0, 1), "calls_span_s": round(last - first, 1),
            "after_last_call_s": round(t_end - last, 1), "mean_in_flight": round(busy, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "estimated_cost_usd": data["estimated_cost_usd"], "cost_usd": data["cost_usd"],
            "store": "chroma server" if chroma_url else "embedded"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ChromaServer:
    """A real `chroma run` on loopback (as tests/test_chroma_server.py starts one)."""

    def __enter__(self) -> str:
        exe = shutil.which("chroma")
        if exe is None:
            raise SystemExit("the `chroma` executable (installed with chromadb) is not on PATH")
        self.tmp = tempfile.TemporaryDirectory()
        port = _free_port()
        self.log = open(Path(self.tmp.name) / "chroma.log", "w")
        self.proc = subprocess.Popen([exe, "run", "--path", str(Path(self.tmp.name) / "db"), "--host", "127.0.0.1",
                                      "--port", str(port)], stdout=self.log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as resp:
                    if resp.status == 200:
                        return url
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("chroma run did not start")
            time.sleep(0.3)

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        self.tmp.cleanup()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,50", help="company counts, each in its own process")
    ap.add_argument("--one", type=int, default=None, help="run one size in this process and print JSON")
    ap.add_argument("--serve", default=None, help=argparse.SUPPRESS)  # internal: the loopback server process
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--latency", type=float, default=1.0, help="seconds per API call")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--chroma-url", default="", help="use this Chroma server")
    ap.add_argument("--chroma-server", action="store_true", help="start a `chroma run` server and use it")
    args = ap.parse_args()
    if args.serve:
        serve(args.latency, Path(args.serve))
        return
    if args.one is not None:
        print(json.dumps(one(args.one, args.questions, args.latency, args.concurrency, args.chroma_url)))
        return

    def run_size(n: int, url: str) -> dict:
        cmd = [sys.executable, __file__, "--one", str(n), "--questions", str(args.questions),
               "--latency", str(args.latency), "--concurrency", str(args.concurrency), "--chroma-url", url]
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise SystemExit(f"size {n} failed:\n{out.stderr[-3000:]}")
        return json.loads(out.stdout.strip().splitlines()[-1])

    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    if args.chroma_server:
        with ChromaServer() as url:
            results = [run_size(n, url) for n in sizes]
    else:
        results = [run_size(n, args.chroma_url) for n in sizes]
    for r in results:
        print(f"{r['store']}: {r['companies']} companies x {args.questions} questions = {r['rows']} rows, "
              f"{r['answered']} answered, {r['failed']} companies failed, {r['failed_rows']} rows failed; "
              f"{r['chat_calls']} calls ({r['calls_per_row']}/row), max {r['max_in_flight']} in flight "
              f"(limit {args.concurrency})")
        print(f"  wall {r['wall_s']} s (planning {r['plan_s']} s) vs critical path "
              f"ceil({r['rows']}/{args.concurrency}) x {r['calls_per_row']:.0f} x {args.latency} s = {r['critical_s']} s: "
              f"ratio {r['ratio']}; peak RSS {r['peak_rss_mb']} MB; cost ${r['cost_usd']:.4f} "
              f"(estimated ${r['estimated_cost_usd']:.4f})")
        print(f"  {r['before_first_call_s']} s before the first call, {r['calls_span_s']} s of calls with "
              f"{r['mean_in_flight']} in flight on average, {r['after_last_call_s']} s after the last")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
