"""How long `autofill run` takes to give up when the model cannot be used, with the default retry
settings (4 retries, 1 s base delay): OPENAI_BASE_URL at a closed loopback port, and a key the
(loopback) server refuses. Prints the wall time, the requests the server saw and how the run ended,
and whether the existing output survived byte for byte.

    python benchmarks/dead_endpoint.py [--rows 15] [--killed-rows 60] [--kill-after 5]

Then the issue-22 case through the real CLI in a child process: a loopback server killed --kill-after
seconds after its first chat request into a --killed-rows run (concurrency 8). Prints how long the run
went on after the kill, its exit code, its message and how many rows finished and were written.

Retrieval uses the FakeEmbedder from tests/; the existing output is an evidence-only run, as in the
issue that asked for this. Runs offline; nothing leaves the machine."""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autofill.answer.pipeline import run_questionnaire  # noqa: E402
from autofill.providers.base import Providers  # noqa: E402
from autofill.providers.factory import make_chat  # noqa: E402
from benchmarks.answer_latency import questions  # noqa: E402
from tests.answer_helpers import COMPANY, make_questionnaire, make_workspace  # noqa: E402
from tests.llm_server import LLMServer  # noqa: E402


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def attempt(settings, emb, questionnaire, out_dir, base_url, key) -> str:
    settings.llm.provider, settings.llm.base_url, settings.llm.api_key = "openai", base_url, key
    settings.llm.model, settings.llm.cache = "gpt-4o-mini", False
    t0 = time.monotonic()
    try:
        report = run_questionnaire(settings, COMPANY, questionnaire, out_dir=out_dir,
                                   providers=Providers(embedder=emb, chat=make_chat(settings)))
        ended = f"completed: {report.failed} of {report.rows} rows failed"
    except Exception as exc:  # noqa: BLE001 - what the run raised is the measurement
        ended = f"stopped: {type(exc).__name__}: {str(exc)[:140]}"
    return f"{time.monotonic() - t0:6.2f} s  {ended}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=15)
    ap.add_argument("--killed-rows", type=int, default=60)
    ap.add_argument("--kill-after", type=float, default=5.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        settings, emb = make_workspace(root, filler=False)
        questionnaire = make_questionnaire(root / "bench.xlsx", questions(args.rows))
        good = run_questionnaire(settings, COMPANY, questionnaire, out_dir=root / "out",
                                 providers=Providers(embedder=emb)).output
        before = good.read_bytes()
        print(f"dead endpoint: {attempt(settings, emb, questionnaire, root / 'out', closed_port_url(), 'sk-x')}")
        print(f"  existing output byte-identical: {good.read_bytes() == before}")
        with LLMServer(require_key="sk-right") as server:
            line = attempt(settings, emb, questionnaire, root / "out", server.base_url, "sk-wrong")
            print(f"refused key:   {line}; {server.count('chat')} chat requests")
        print(f"  existing output byte-identical: {good.read_bytes() == before}")
    killed_mid_run(args.killed_rows, args.kill_after)


def killed_mid_run(rows: int, kill_after: float) -> None:
    import subprocess

    from tests.answer_helpers import MARKERS, read_output
    from tests.llm_server import by_marker
    from tests.race_helpers import ROOT as REPO, cli_env, ingested_workspace, many_rows

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ws = ingested_workspace(root)
        questionnaire = many_rows(root, rows)
        server = LLMServer(latency_s=0.5).start()
        server.responder = by_marker(MARKERS)
        env = cli_env({"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-bench", "AUTOFILL_LLM__CACHE": "false",
                       "AUTOFILL_LLM__MODEL": "gpt-4o-mini"})
        proc = subprocess.Popen([sys.executable, "-m", "autofill", *ws, "run", "--company", COMPANY, "--questionnaire",
                                 str(questionnaire), "--llm", "openai", "--concurrency", "8", "--out", str(root / "out"),
                                 "--yes"], env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while server.count("chat") == 0 and proc.poll() is None:
            time.sleep(0.05)
        time.sleep(kill_after)
        server.stop()
        killed = time.monotonic()
        _, err = proc.communicate()
        after = time.monotonic() - killed
        warnings = sum("retry" in line for line in err.splitlines())
        written = list((root / "out").glob("*.xlsx"))
        kept = sum(1 for r in read_output(written[0])["rows"].values() if r.get("Answer")) if written else 0
        last = err.strip().splitlines()[-1] if err.strip() else ""
        print(f"server killed {kill_after:.0f} s into a {rows}-row run: the run ended {after:.1f} s later, exit "
              f"{proc.returncode}, {warnings} retry warnings, {kept} answered rows in the written output")
        print(f"  last line: {last[:300]}")


if __name__ == "__main__":
    main()
