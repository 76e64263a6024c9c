"""One writer per output (autofill/outputlock.py): a second `autofill run` on an output that another run
is writing exits 2 with one line naming that process, before any model call; the lock of a process
killed with -9 is taken over by the next run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from autofill.outputlock import OutputLock, lock_path
from autofill.errors import InputError
from tests import cli_process
from tests.rows_helpers import ROOT, cli, company_reports, env_for, last_json, questionnaire, responder

COMPANY = "Lock Test Co"


def test_lock_is_exclusive_and_released(tmp_path):
    out = tmp_path / "q_filled.xlsx"
    with OutputLock(out):
        assert lock_path(out).is_file()
        info = json.loads(lock_path(out).read_text())
        assert info["pid"] == os.getpid() and info["host"] and info["since"]
        with pytest.raises(InputError, match=rf"PID {os.getpid()} on .*, since "):
            OutputLock(out).acquire()
    assert not lock_path(out).exists()
    with OutputLock(out):  # free again
        pass


def test_a_killed_holder_leaves_a_lock_the_next_run_takes_over(tmp_path):
    out = tmp_path / "q_filled.xlsx"
    code = ("import sys, time; sys.path.insert(0, sys.argv[2]); from autofill.outputlock import OutputLock; "
            "OutputLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(600)")
    proc = subprocess.Popen([sys.executable, "-c", code, str(out), str(ROOT)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    with pytest.raises(InputError, match=f"PID {proc.pid} "):
        OutputLock(out).acquire()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert lock_path(out).is_file()  # the dead run's file is still there ...
    with OutputLock(out):  # ... and taken over
        assert json.loads(lock_path(out).read_text())["pid"] == os.getpid()


def test_a_second_concurrent_run_makes_no_model_call(tmp_path, llm_server):
    questionnaire(tmp_path / "q.xlsx")
    company_reports(tmp_path / "reports", COMPANY, 40, 900)
    llm_server.responder = responder()
    env = env_for(llm_server, AUTOFILL_LLM__CONCURRENCY="1")
    assert cli(tmp_path, env, "ingest", "--company", COMPANY, "reports").returncode == 0
    llm_server.latency_s = 1.5  # the first run (6 calls, one at a time, 9 s) is still answering when the second starts
    args = ["--workspace", str(tmp_path), "run", "--company", COMPANY,
            "--questionnaire", "q.xlsx", "--json"]
    first = cli_process.popen(args, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not llm_server.chat_requests() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert llm_server.chat_requests(), "the first run never called the model"
    calls = len(llm_server.chat_requests())
    second = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "q.xlsx", "--json")
    out, err = first.communicate(timeout=180)
    assert first.returncode == 0, err
    assert second.returncode == 2, (second.stdout, second.stderr)
    line = second.stderr.strip()
    assert len(line.splitlines()) == 1 and f"PID {first.pid} on " in line and "being written by another autofill run" in line
    assert last_json(subprocess.CompletedProcess(args, 0, out, err))["answered"] == 2
    # The second run made no call: HyDE, rerank and answer for each of the two rows, all the first run's.
    assert calls >= 1 and len(llm_server.chat_requests()) == 2 * 3
