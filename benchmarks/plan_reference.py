"""Reference outputs of the real CLI, to compare a refactoring cell for cell (benchmarks/compare_workbooks.py).

Ingests the bundled sample (samples/northwind_sustainability_2024.pdf, local ONNX embedder) into a fresh
workspace, then fills questionnaires/sample_questionnaire.xlsx with fresh `autofill` processes:

- offline (no model: evidence-only drafts), in the default mode and in each retrieval mode;
- against a loopback OpenAI-compatible model (tests/llm_server.py) that answers HyDE, rerank,
  multi-query and answer prompts deterministically (reverse rerank order, cite the first passage), in
  `auto` and each mode/reranker combination, plus the Cohere reranker on a loopback Cohere server;
- `ask --json`, `batch --estimate --json` and `eval` of one run, whose stdout is saved too;
- the test suite's fixture workspace (tests/answer_helpers.py: the sample company report plus a 34-page
  filler report, FakeEmbedder, its Northwind questionnaire) through `run_questionnaire` in this process,
  offline and against the loopback model with the tests' scripted responder (`fixture-*`).

    python benchmarks/plan_reference.py OUT_DIR [--only NAME,...]

Writes OUT_DIR/<name>.xlsx (the filled workbook) and OUT_DIR/<name>.out (stdout; stderr in .err).
Runs offline; nothing leaves the machine."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.answer_helpers import passages_in  # noqa: E402
from tests.llm_server import CohereServer, LLMServer, by_marker, last_user_text  # noqa: E402

COMPANY = "Northwind Metals"
QUESTIONNAIRE = ROOT / "questionnaires" / "sample_questionnaire.xlsx"
GOLD = ROOT / "questionnaires" / "sample_gold.json"
SAMPLE = ROOT / "samples" / "northwind_sustainability_2024.pdf"


def hyde(req: dict) -> str:
    return "Here is a hypothetical passage:\n\n" + " ".join(last_user_text(req).split()[-60:])


def rerank(req: dict) -> str:
    return " > ".join(f"[{n}]" for n, *_ in reversed(passages_in(last_user_text(req))))


def answer(req: dict) -> str:
    found = passages_in(last_user_text(req))
    if not found:
        return json.dumps({"reasoning": "nothing", "answer": "Not disclosed", "citations": [], "confidence": "low"})
    n, _, _, text = found[0]
    return "Thinking.\n```json\n" + json.dumps({"reasoning": f"Passage {n} says so.", "answer": " ".join(text.split()[:14]),
                                               "citations": [n], "confidence": "medium"}) + "\n```"


def multiquery(req: dict) -> str:
    words = last_user_text(req).split()
    return "Queries:\n1. " + " ".join(words[-8:]) + "\n2. " + " ".join(words[-16:-8]) + "\n3. emissions scope"


RESPONDER = by_marker({"Write a short passage": hyde, "Rank all": rerank, "single JSON object": answer,
                       "search queries": multiquery}, "OK")

OFFLINE = {
    "offline-default": [],
    "offline-dense": ["--retrieval", "dense"],
    "offline-hyde": ["--retrieval", "hyde"],  # no model: falls back (with a warning)
    "offline-llm-rerank": ["--reranker", "llm"],
}
LOOPBACK = {
    "loopback-auto": [],
    "loopback-hybrid-none": ["--retrieval", "hybrid", "--reranker", "none"],
    "loopback-dense-llm": ["--retrieval", "dense", "--reranker", "llm"],
    "loopback-hyde-hybrid-mq": ["--retrieval", "hyde+hybrid", "--multi-query"],
    "loopback-cohere-rerank": ["--retrieval", "hybrid", "--reranker", "cohere"],
    "loopback-nollm": ["--llm", "none"],
}


def cli(env: dict, args: list[str], out: Path, name: str) -> int:
    proc = subprocess.run([sys.executable, "-m", "autofill", *args], env=env, capture_output=True, text=True,
                          cwd=env["AUTOFILL_WORKSPACE"])
    (out / f"{name}.out").write_text(proc.stdout)
    (out / f"{name}.err").write_text(proc.stderr)
    print(f"{name:28s} exit {proc.returncode}  {proc.stderr.strip().splitlines()[0][:100] if proc.stderr.strip() else ''}")
    return proc.returncode


def fill(env: dict, ws: Path, out: Path, name: str, extra: list[str]) -> None:
    folder = ws / "runs" / name
    cli(env, ["run", "--company", COMPANY, "--questionnaire", str(QUESTIONNAIRE), "--out", str(folder), "-y",
              "--no-cache", *extra], out, name)
    for f in folder.glob("*_filled.xlsx"):
        shutil.copy2(f, out / f"{name}.xlsx")


FIXTURE = {
    "fixture-offline": {"provider": "none"},
    "fixture-auto": {},
    "fixture-hybrid-none": {"mode": "hybrid", "reranker": "none"},
    "fixture-hyde-hybrid-llm": {"mode": "hyde+hybrid", "reranker": "llm"},
}


def fixtures(root: Path, out: Path, only: set[str]) -> None:
    from autofill.answer.pipeline import run_questionnaire
    from autofill.providers.base import Providers
    from autofill.providers.factory import make_chat
    from tests.answer_helpers import COMPANY as FIXTURE_COMPANY
    from tests.answer_helpers import MARKERS, make_questionnaire, make_workspace

    settings, emb = make_workspace(root)
    questionnaire = make_questionnaire(root / "fixture.xlsx")
    with LLMServer() as server:
        server.responder = by_marker(MARKERS)
        for name, choice in FIXTURE.items():
            if only and name not in only:
                continue
            settings.llm.provider = choice.get("provider", "auto")
            settings.llm.base_url, settings.llm.api_key, settings.llm.cache = server.base_url, "sk-loopback", False
            settings.retrieval.mode = choice.get("mode", "auto")
            settings.retrieval.reranker = choice.get("reranker", "auto")
            report = run_questionnaire(settings, FIXTURE_COMPANY, questionnaire, out_dir=root / name, resume=False,
                                       providers=Providers(embedder=emb, chat=make_chat(settings)))
            shutil.copy2(report.output, out / f"{name}.xlsx")
            print(f"{name:28s} {report.answered} answered, {report.drafted} drafted, {report.failed} failed")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", default="", help="comma-separated names")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "COHERE_", "AUTOFILL_"))}
        env = {**base, "PYTHONPATH": str(ROOT), "AUTOFILL_WORKSPACE": str(ws)}
        cli(env, ["ingest", "--company", COMPANY, str(SAMPLE)], out, "ingest")
        for name, extra in OFFLINE.items():
            if not only or name in only:
                fill(env, ws, out, name, extra)
        with LLMServer() as server, CohereServer() as cohere:
            server.responder = RESPONDER
            llm_env = {**env, "OPENAI_API_KEY": "sk-loopback", "OPENAI_BASE_URL": server.base_url,
                       "COHERE_API_KEY": "co-loopback", "COHERE_BASE_URL": cohere.base_url}
            for name, extra in LOOPBACK.items():
                if not only or name in only:
                    fill(llm_env, ws, out, name, extra)
            if not only or "ask" in only:
                cli(llm_env, ["ask", "--company", COMPANY, "--json",
                              "What were the Scope 1 emissions in FY2024?"], out, "ask")
            if not only or "estimate" in only:
                manifest = ws / "portfolio.csv"
                manifest.write_text(f"company,reports,questionnaire\n{COMPANY},{SAMPLE},{QUESTIONNAIRE}\n")
                cli(llm_env, ["batch", str(manifest), "--estimate", "--json"], out, "estimate")
        wanted = {n for n in only if n.startswith("fixture")}
        if not only or wanted:
            (Path(tmp) / "fixture").mkdir()
            fixtures(Path(tmp) / "fixture", out, wanted)
        if not only or "eval" in only:
            # An eval config asking for HyDE with no model: the run falls back to hybrid retrieval.
            config = ws / "hyde.toml"
            config.write_text('[retrieval]\nmode = "hyde"\n')
            cli(env, ["eval", "--company", COMPANY, "--questionnaire", str(QUESTIONNAIRE), "--gold", str(GOLD),
                      "--config", str(config), "--out", str(ws / "eval"), "--json"], out, "eval")
            for f in (ws / "eval").rglob("*_eval.xlsx"):
                shutil.copy2(f, out / "eval.xlsx")
            if (ws / "eval" / "eval.md").is_file():
                shutil.copy2(ws / "eval" / "eval.md", out / "eval.md")


if __name__ == "__main__":
    main()
