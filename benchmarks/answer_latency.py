"""Answer-stage latency: 15 questions against the loopback OpenAI-compatible server with a fixed
latency per call. Compares wall time with the critical path the concurrency limit allows
(ceil(rows / concurrency) * calls per row * latency) and prints tokens per question by stage.

    python benchmarks/answer_latency.py [--latency 1.0] [--concurrency 4] [--window 30]
    python benchmarks/answer_latency.py --cli --rows 60 --concurrency 16

`--cli` measures the whole command instead (`python -m autofill run` in a child process, start-up,
the real local embedder and the workbook and report writing included; benchmarks/startup.py).

Retrieval uses the deterministic FakeEmbedder from tests/ so the figure is about the LLM stages and
the row scheduling, not the embedding model. Runs offline; nothing leaves the machine."""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autofill.answer.pipeline import run_questionnaire  # noqa: E402
from autofill.providers.base import Providers  # noqa: E402
from autofill.providers.factory import make_chat  # noqa: E402
from tests.answer_helpers import COMPANY, FACTS, MARKERS, Fact, make_questionnaire, make_workspace  # noqa: E402
from tests.llm_server import LLMServer, by_marker  # noqa: E402


def questions(n: int) -> list[Fact]:
    """n distinct questions cycling over the sample facts (the text differs, so no cache hits)."""
    return [Fact(f"{f.question[:-1]} (item {i + 1})?", f.form, f.dropdown, f.phrase, f.page, f.answer)
            for i, f in enumerate((FACTS * n)[:n])]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=15)
    ap.add_argument("--latency", type=float, default=1.0, help="seconds per API call")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--window", type=int, default=30, help="rerank window (30, the default: one rerank call per row)")
    ap.add_argument("--cli", action="store_true", help="the whole `autofill run` command in a child process")
    args = ap.parse_args()
    if args.cli:
        return whole_command(args)

    with tempfile.TemporaryDirectory() as tmp, LLMServer(latency_s=args.latency) as server:
        root = Path(tmp)
        settings, emb = make_workspace(root)
        facts = questions(args.rows)
        questionnaire = make_questionnaire(root / "bench.xlsx", facts)
        server.responder = by_marker(MARKERS)
        settings.llm.provider = "openai"
        settings.llm.base_url = server.base_url
        settings.llm.api_key = "sk-bench"
        settings.llm.model = "gpt-4o-mini"
        settings.llm.cache = False
        settings.llm.concurrency = args.concurrency
        settings.retrieval.rerank_window = args.window
        t0 = time.monotonic()
        report = run_questionnaire(settings, COMPANY, questionnaire, out_dir=root / "out",
                                   providers=Providers(embedder=emb, chat=make_chat(settings)))
        wall = time.monotonic() - t0

    calls = report.totals().calls
    per_row = calls / max(1, report.rows)
    critical = math.ceil(report.rows / args.concurrency) * per_row * args.latency
    print(f"rows {report.rows}, answered {report.answered}, failed {report.failed}, API calls {calls} "
          f"({per_row:.1f} per row), concurrency {args.concurrency}, latency {args.latency:.2f} s/call, "
          f"max requests in flight {server.max_in_flight}")
    print(f"wall time {wall:.2f} s (run_questionnaire incl. writing the workbook and review report; "
          f"pipeline's own clock {report.seconds:.2f} s)")
    print(f"critical path ceil({report.rows}/{args.concurrency}) x {per_row:.0f} calls x {args.latency:.2f} s "
          f"= {critical:.2f} s; ratio wall/critical = {wall / critical:.2f} "
          f"(pipeline clock: {report.seconds / critical:.2f})")
    print("tokens per question by stage (prompt + completion):")
    for stage in ("hyde", "rerank", "answer"):
        u = report.usage.get(stage)
        if u:
            print(f"  {stage:7s} {u.calls / report.rows:4.1f} calls  {u.prompt_tokens / report.rows:8.0f} + "
                  f"{u.completion_tokens / report.rows:5.0f} tokens")
    t = report.totals()
    print(f"  total   {t.calls / report.rows:4.1f} calls  {t.prompt_tokens / report.rows:8.0f} + "
          f"{t.completion_tokens / report.rows:5.0f} tokens; cost ${t.cost_usd:.4f} for {report.rows} rows "
          f"at the gpt-4o-mini price")


def whole_command(args) -> None:
    """The CLI end to end: ingest the sample with the local embedder, then one timed `autofill run`."""
    from benchmarks.startup import concurrent_run, measured
    from tests.answer_helpers import SAMPLE
    from tests.pdf_factory import make_sample_company_pdf

    with tempfile.TemporaryDirectory() as tmp, LLMServer(latency_s=args.latency) as server:
        root = Path(tmp)
        ws = ["--workspace", str(root / "ws")]
        measured([*ws, "ingest", "--company", COMPANY, str(make_sample_company_pdf(root / SAMPLE)), "--json"])
        concurrent_run(root, ws, server, args.rows, args.concurrency, args.latency)


if __name__ == "__main__":
    main()
