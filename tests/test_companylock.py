"""autofill/companylock.py: commands on one company take turns. The end-to-end test is what the hostile-use
battery did: `forget` while a `run` of the same company is answering rows against a slow loopback model,
both through the real CLI in fresh processes. Before, `forget` went ahead, the run failed its remaining
rows (`Collection ... does not exist`) and wrote response-cache entries after `forget` had reported them
removed; now `forget` refuses in one line naming the run (PID, since when) and deletes nothing, the run
answers every row, and a `forget` afterwards removes everything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from autofill.companylock import EXCLUSIVE, SHARED, CompanyBusy, CompanyTurn, holders
from tests import cli_process
from tests.llm_server import LLMServer, by_marker
from tests.race_helpers import ROOT, cli, cli_env, ingested_workspace, many_rows


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []


def test_forget_refuses_while_a_run_of_the_company_answers_and_the_run_loses_nothing(tmp_path):
    from tests.answer_helpers import COMPANY, MARKERS

    ws = ingested_workspace(tmp_path)
    questionnaire = many_rows(tmp_path, 14)
    cache = tmp_path / "ws" / "vectordb" / ".llm-cache"
    with LLMServer(latency_s=0.4) as server:
        server.responder = by_marker(MARKERS)
        env = cli_env({"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-turns",
                       "AUTOFILL_LLM__MODEL": "gpt-4o-mini"})
        run = cli_process.popen(
            [*ws, "run", "--company", COMPANY, "--questionnaire", str(questionnaire),
             "--llm", "openai", "--concurrency", "2", "--out", str(tmp_path / "out"), "--yes", "--json"],
            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 120
            while len(server.chat_requests()) < 3 and run.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert run.poll() is None, run.communicate()[1][-3000:]
            forgot = cli([*ws, "forget", "--company", COMPANY, "--yes", "--json"])
            still_running = run.poll() is None
            out, err = run.communicate(timeout=300)
        finally:
            if run.poll() is None:
                run.kill()
    # forget said no, in one line naming the run, and deleted nothing ...
    assert forgot.returncode == 2, (forgot.returncode, forgot.stdout, forgot.stderr[-2000:])
    assert still_running
    line = forgot.stderr.strip()
    assert len(line.splitlines()) == 1, line
    assert "autofill run" in line and f"PID {run.pid}" in line and "since" in line and "nothing was deleted" in line
    # ... so the run answered every row.
    report = json.loads(next(ln for ln in reversed(out.splitlines()) if ln.startswith("{")))
    assert run.returncode == 0 and report["failed"] == 0 and report["answered"] == 14, err[-3000:]
    assert _files(cache)  # the run's replies, kept for its re-run

    # Once the run has finished, forget goes ahead and nothing of the company is written afterwards.
    forgot = cli([*ws, "forget", "--company", COMPANY, "--yes", "--json"])
    assert forgot.returncode == 0, forgot.stderr[-2000:]
    assert not _files(cache)
    time.sleep(1.0)
    assert not _files(cache)
    assert holders(tmp_path / "ws" / "vectordb", _collection(COMPANY)) == []


def _collection(company: str) -> str:
    from autofill.store.chroma_client import collection_name

    return collection_name(company)


def _settings(tmp_path: Path, wait_s: float = 0.0) -> SimpleNamespace:
    (tmp_path / "vectordb").mkdir(exist_ok=True)
    return SimpleNamespace(vectordb_dir=tmp_path / "vectordb", store=SimpleNamespace(lock_timeout_s=wait_s))


HOLD = """
import sys, time
from types import SimpleNamespace
from pathlib import Path
from autofill.companylock import CompanyTurn
s = SimpleNamespace(vectordb_dir=Path(sys.argv[1]), store=SimpleNamespace(lock_timeout_s=0))
with CompanyTurn(s, "Acme", sys.argv[2], sys.argv[3]):
    print("held", flush=True)
    time.sleep(60)
"""


def _holder(tmp_path: Path, mode: str, label: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "vectordb"), mode, label],
                            env=cli_env(), cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_readers_share_a_writer_waits_then_names_them_and_a_killed_holder_lets_go(tmp_path):
    settings = _settings(tmp_path)
    reader = _holder(tmp_path, SHARED, "run")
    try:
        with CompanyTurn(settings, "Acme", SHARED, "ask"):  # readers share
            pass
        with pytest.raises(CompanyBusy, match=rf"in use by autofill run \(PID {reader.pid} on .*since .*nothing was "
                                              r"deleted"):
            with CompanyTurn(settings, "Acme", EXCLUSIVE, "forget"):
                pass
        waited = time.monotonic()
        with pytest.raises(CompanyBusy, match="in use by autofill run"):
            with CompanyTurn(_settings(tmp_path, wait_s=0.5), "Acme", EXCLUSIVE, "ingest"):
                pass
        assert time.monotonic() - waited >= 0.5
    finally:
        reader.kill()  # kill -9: the kernel lets go of its lock
        reader.wait()
    with CompanyTurn(settings, "Acme", EXCLUSIVE, "forget"):
        assert holders(settings.vectordb_dir, _collection("Acme")) == []


def test_a_reader_waits_for_a_writer_and_refuses_naming_it(tmp_path):
    settings = _settings(tmp_path)
    writer = _holder(tmp_path, EXCLUSIVE, "ingest")
    try:
        with pytest.raises(CompanyBusy, match=rf"being changed by autofill ingest \(PID {writer.pid}\b"):
            with CompanyTurn(settings, "Acme", SHARED, "run"):
                pass
    finally:
        writer.kill()
        writer.wait()
    with CompanyTurn(settings, "Acme", SHARED, "run"):
        pass


def test_turns_are_reentrant_in_one_process_and_a_writer_inside_a_reader_converts(tmp_path):
    settings = _settings(tmp_path)
    with CompanyTurn(settings, "Acme", SHARED, "review"):
        with CompanyTurn(settings, "Acme", SHARED, "review"):
            pass
        with CompanyTurn(settings, "Acme", EXCLUSIVE, "ingest"):
            reader = subprocess.run([sys.executable, "-c", HOLD.replace("time.sleep(60)", "pass"),
                                     str(settings.vectordb_dir), SHARED, "run"], env=cli_env(), cwd=ROOT,
                                    capture_output=True, text=True)
            assert reader.returncode == 1 and "being changed by" in reader.stderr
        reader = subprocess.run([sys.executable, "-c", HOLD.replace("time.sleep(60)", "pass"),
                                 str(settings.vectordb_dir), SHARED, "run"], env=cli_env(), cwd=ROOT,
                                capture_output=True, text=True)
        assert reader.returncode == 0, reader.stderr
    assert not list((settings.vectordb_dir / ".turns").glob("*.json"))
    assert os.path.exists(settings.vectordb_dir / ".turns" / f"{_collection('Acme')}.lock")
