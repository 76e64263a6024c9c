"""Fresh-process `autofill run`s against the loopback OpenAI-compatible server, for the import-race
test (tests/test_imports.py) and benchmark (benchmarks/import_race.py): a workspace ingested once
through the real CLI (local ONNX embedder), a questionnaire of many distinct rows, CPU busy loops that
are started and stopped around the runs, and the failed/unparsed row counts of each run's --json line."""

from __future__ import annotations

import contextlib
import json
import multiprocessing as mp
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from tests import cli_process

ROOT = Path(__file__).resolve().parents[1]


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "ANONYMIZED_TELEMETRY": "False"}
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "COHERE_API_KEY", "AZURE_OPENAI_API_KEY"):
        env.pop(name, None)
    env.update(extra or {})
    return env


def cli(args: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """`python -m autofill ARGS` in a fresh interpreter (cold imports)."""
    return cli_process.run(args, env=cli_env(env), cwd=ROOT, timeout=timeout)


_INGESTED: list[Path] = []  # the folder this process's one CLI ingest of the sample went into


def ingested_workspace(root: Path) -> list[str]:
    """The sample company report ingested into `root/ws` through the CLI; the workspace arguments.

    The cold `autofill ingest` runs once per process, into a folder removed at exit; each caller gets
    its own copy of that workspace and of the PDF (the store records the PDF's path in that folder, the
    same bytes). None of its callers is about ingesting, and the ingest was a cold process each."""
    import atexit
    import shutil
    import tempfile

    from tests.answer_helpers import COMPANY, SAMPLE
    from tests.pdf_factory import make_sample_company_pdf

    if not _INGESTED:
        first = Path(tempfile.mkdtemp(prefix="af-ingested-"))
        atexit.register(shutil.rmtree, first, True)
        pdf = make_sample_company_pdf(first / SAMPLE)
        done = cli(["--workspace", str(first / "ws"), "ingest", "--company", COMPANY, str(pdf), "--json"])
        assert done.returncode == 0, done.stderr[-3000:]
        _INGESTED.append(first)
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(_INGESTED[0] / "ws", root / "ws")
    shutil.copy2(_INGESTED[0] / SAMPLE, root / SAMPLE)
    return ["--workspace", str(root / "ws")]


def many_rows(root: Path, rows: int, name: str = "many.xlsx") -> Path:
    from benchmarks.answer_latency import questions
    from tests.answer_helpers import make_questionnaire

    return make_questionnaire(root / name, questions(rows))


@dataclass
class RunOutcome:
    code: int
    failed: int
    unparsed: int
    answered: int
    seconds: float
    errors: list[str]


def run_once(ws: list[str], questionnaire: Path, out: Path, base_url: str, concurrency: int = 8,
             extra: list[str] | None = None, env: dict[str, str] | None = None) -> RunOutcome:
    """One fresh-process `autofill run --json` (response cache off: every row calls the model)."""
    from tests.answer_helpers import COMPANY

    t0 = time.monotonic()
    done = cli([*ws, "run", "--company", COMPANY, "--questionnaire", str(questionnaire), "--llm", "openai",
                "--concurrency", str(concurrency), "--out", str(out), "--yes", "--json", "--fresh", *(extra or [])],
               {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-race", "AUTOFILL_LLM__MODEL": "gpt-4o-mini",
                "AUTOFILL_LLM__CACHE": "false", **(env or {})})
    seconds = time.monotonic() - t0
    line = next((ln for ln in reversed(done.stdout.splitlines()) if ln.startswith("{")), "")
    data = json.loads(line) if line else {}
    problems = [str(p) for p in data.get("problems", [])]
    tail = [ln for ln in done.stderr.splitlines() if "Error" in ln or "rror:" in ln][:5]
    if done.returncode:
        tail += done.stderr.splitlines()[-6:]
    return RunOutcome(done.returncode, int(data.get("failed", -1) if data else -1), int(data.get("unparsed", 0) or 0),
                      int(data.get("answered", 0) or 0), seconds, problems[:5] + tail)


def _spin(stop, parent: int) -> None:  # a busy loop until told to stop, or its parent is gone
    while not stop.is_set() and os.getppid() == parent:
        for _ in range(100_000):
            pass


@contextlib.contextmanager
def busy_cpus(n: int | None = None):
    """`n` busy-loop processes (default: one per CPU) for the duration of the block."""
    ctx = mp.get_context("spawn")
    stop = ctx.Event()
    procs = [ctx.Process(target=_spin, args=(stop, os.getpid()), daemon=True) for _ in range(n or os.cpu_count() or 2)]
    for p in procs:
        p.start()
    try:
        yield
    finally:
        stop.set()
        for p in procs:
            p.join(5)
            if p.is_alive():
                p.terminate()
