"""`autofill batch --engine ray` (portfolio/ray_engine.py) on one local Ray instance that this file
starts once (num_cpus=2) and shuts down at its end: the same workbooks as the local engine, a Ray worker
killed mid-document, one budget and one slot limit across workers, a failing company among good ones,
and Ctrl-C of a driver that started its own Ray. Real PDFs, real Chroma stores, real workbooks; models
and embeddings from the loopback OpenAI-compatible server or the local ONNX embedder."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from autofill.cli import cli
from autofill.review.reader import read_filled_workbook
from tests import cli_process
from tests.pdf_factory import make_corrupt_pdf, make_text_pdf
from tests.portfolio_helpers import (COMPANIES, QUESTIONS, check_unreadable_rows, entries, model_env, price_loopback,
                                     responder, write_manifest)

ray = pytest.importorskip("ray")  # the `ray` extra, which scripts/test.sh installs
from ray._private import state as ray_state  # noqa: E402 - the cluster's actor table, dead actors included

pytestmark = pytest.mark.ray
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray for this file's tests (starting one takes seconds); the engine joins it. Shut down
    when the file is done: its raylet, GCS and warm idle workers otherwise kept using CPU and memory
    beside every later file of the worker's session."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", logging_level=logging.WARNING,
             _system_config={"idle_worker_killing_time_threshold_ms": 3_600_000, "num_workers_soft_limit": 16})
    yield
    ray.shutdown()


def batch(workspace, env, *args):
    price_loopback(workspace)  # the cost cap needs a price (list prices apply only at a provider's own host)
    result = CliRunner(env=env).invoke(cli, ["--workspace", str(workspace), "batch", *map(str, args), "--json"])
    lines = result.stdout.strip().splitlines()
    assert lines, (result.exit_code, result.output, result.exception)
    return result.exit_code, json.loads(lines[-1]), result


def cells(path) -> list[tuple]:
    """What a reviewer reads per question row of a filled workbook."""
    return [(q.key, q.answer, q.reasoning, q.sources, q.status) for q in read_filled_workbook(Path(path)).questions]


def descendants(root: int) -> set[int]:
    """`root` and every process below it (for a driver: raylet, GCS, workers, their helpers)."""
    out = subprocess.run(["ps", "-eo", "pid,ppid"], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines()[1:]:
        pid, ppid = map(int, line.split())
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo += children.get(pid, [])
    return found


def ray_processes(title: str) -> list[int]:
    """This session's Ray processes (descendants of this process) titled `title`, e.g. ray::_document_task:
    other Ray instances on the machine are left alone."""
    mine = descendants(os.getpid())
    out = subprocess.run(["ps", "-ww", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines()[1:] if title in line and int(line.split()[0]) in mine]


def test_engine_is_a_known_name(workspace):
    from autofill.errors import InputError
    from autofill.settings import load_settings

    assert load_settings(workspace, (), environ={}).portfolio.engine == "local"
    with pytest.raises(InputError, match="unknown portfolio.engine 'spark'"):
        load_settings(workspace, (), environ={"AUTOFILL_PORTFOLIO__ENGINE": "spark"})
    result = CliRunner().invoke(cli, ["--workspace", str(workspace), "batch", "p.csv", "--engine", "spark"])
    assert result.exit_code == 2 and "spark" in result.output


def test_ray_fills_the_same_workbooks_as_the_local_engine(tmp_path):
    # Offline: evidence-only drafts from the local ONNX embedder, no model at all.
    root = tmp_path / "inputs"
    root.mkdir()
    manifest = write_manifest(root, entries(root))
    env = {"AUTOFILL_LLM__PROVIDER": "none"}
    outputs = {}
    for engine in ("local", "ray"):
        ws = tmp_path / engine
        ws.mkdir()
        code, data, result = batch(ws, env, manifest, "--engine", engine)
        assert code == 0, result.output
        assert data["engine"] == engine
        assert (data["companies"], data["succeeded"], data["new_documents"], data["drafted"]) == (3, 3, 3, 3 * QUESTIONS)
        outputs[engine] = data
    local, distributed = outputs["local"], outputs["ray"]
    for company in COMPANIES:
        want, got = cells(local["outputs"][company]), cells(distributed["outputs"][company])
        assert len(want) == QUESTIONS and all(row[2] and row[3] for row in want)  # quotes and cited pages
        assert got == want, company
    overview = [[c.value for c in row] for row in openpyxl.load_workbook(local["portfolio"])["Portfolio"].iter_rows()]
    assert overview == [[c.value for c in row]
                        for row in openpyxl.load_workbook(distributed["portfolio"])["Portfolio"].iter_rows()]
    assert (Path(distributed["portfolio"]).parent / "index.html").is_file()

    # Resume: the same command again finds every company up to date and does nothing.
    code, again, _ = batch(tmp_path / "ray", env, manifest, "--engine", "ray")
    assert code == 0 and (again["new_documents"], again["drafted"], again["engine"]) == (0, 3 * QUESTIONS, "ray")
    state = json.loads((Path(again["portfolio"]).parent / ".portfolio-state.json").read_text())
    assert sorted(state["companies"]) == sorted(COMPANIES)  # written by the driver, one record per company


def test_a_worker_killed_mid_document_loses_nothing(workspace, llm_server):
    llm_server.responder = responder()
    rows = entries(workspace)
    # A long report for Alpha, so that its document task is still running when it is killed.
    long_pdf = workspace / "reports" / "alpha" / "Alpha annual report 2024.pdf"
    make_text_pdf(long_pdf, [f"Page {i}. " + "Alpha Mining reports its operations, emissions and water use. " * 40
                             for i in range(150)])
    manifest = write_manifest(workspace, rows)
    killed: list[int] = []

    def kill_first_document_task() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            for pid in ray_processes("ray::_document_task"):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                break
            time.sleep(0.01)

    killer = threading.Thread(target=kill_first_document_task, daemon=True)
    killer.start()
    code, data, result = batch(workspace, model_env(llm_server), manifest, "--engine", "ray")
    killer.join()
    assert killed, "no document task was seen running"
    assert code == 0, result.output
    assert (data["succeeded"], data["failed"], data["new_documents"]) == (3, 0, 4)
    assert (data["answered"], data["pending_rows"]) == (3 * QUESTIONS, 0)

    from autofill.settings import load_settings
    from autofill.store.chroma_store import find_store

    settings = load_settings(workspace, (), environ=model_env(llm_server))
    for company in COMPANIES:
        store = find_store(settings, company)
        documents = store.documents()
        # Every document stored once: the collection holds exactly the chunks its records count (a
        # second copy or a stale half of the retried document would add to it).
        assert store._chunks.count() == store.chunk_count() == sum(d.chunks for d in documents.values()) > 0
    assert len(find_store(settings, "Alpha Mining").documents()) == 2


def test_one_budget_and_one_slot_limit_across_workers(workspace, llm_server):
    from autofill.portfolio.engine import make_engine
    from autofill.portfolio.runner import prepare, run_portfolio
    from autofill.settings import load_settings

    llm_server.responder = responder()
    llm_server.latency_s = 0.05
    manifest = write_manifest(workspace, entries(workspace))
    env = model_env(llm_server, AUTOFILL_LLM__CONCURRENCY="2", AUTOFILL_PORTFOLIO__ENGINE="ray")
    price_loopback(workspace)
    settings = load_settings(workspace, (), environ=env)
    prepared = prepare(settings, manifest)
    per_row = prepared.estimate.total("cost_usd") / prepared.estimate.total("rows")
    cap = per_row * 1.5  # rows cost less than estimated: a few are answered, then the cap is reached
    actors = set(ray_state.actors())
    report = run_portfolio(settings, prepared, max_cost=cap, engine=make_engine(settings))
    data = report.to_json()
    # The budget and the slots are held by one actor: each actor is a Ray worker process of its own (~0.8 CPU-s).
    assert [a["ActorClassName"] for k, a in ray_state.actors().items() if k not in actors] == ["SharedActor"]
    assert data["engine"] == "ray" and report.cap_reached, (data, report.extra, cap, per_row)
    assert 0 < data["answered"] < 3 * QUESTIONS and data["answered"] + data["pending_rows"] == 3 * QUESTIONS
    figures = report.extra
    assert figures["slots"]["peak"] <= 2  # llm.concurrency calls in flight across every worker
    assert figures["budget"]["refused"] > 0
    actual = max(o.cost_usd / o.answered for o in report.outcomes if o.answered)
    assert data["cost_usd"] <= cap + figures["budget"]["peak_rows_in_flight"] * actual
    assert len(llm_server.chat_requests()) == data["answered"] * 3  # no call for a pending row

    # The next run, without a cap, answers only the rows left.
    settings = load_settings(workspace, (), environ=env)
    done = run_portfolio(settings, prepare(settings, manifest), engine=make_engine(settings)).to_json()
    not_started = sum(1 for o in report.outcomes if o.status == "pending")  # not even ingested, as locally
    assert (done["pending_rows"], done["failed_rows"], done["new_documents"]) == (0, 0, not_started)
    for output in done["outputs"].values():
        assert all(row[1] for row in cells(output))  # every row answered in every workbook
    assert len(llm_server.chat_requests()) == 3 * QUESTIONS * 3  # no finished row was asked again


def test_a_failing_company_does_not_stop_the_others(workspace, llm_server):
    llm_server.responder = responder()
    rows = entries(workspace)
    make_corrupt_pdf(workspace / "reports" / "beta" / "Beta scan.pdf")
    rows[1]["reports"] = "reports/beta"
    (workspace / "broken.xlsx").write_bytes(b"PK\x03\x04 not really a workbook")
    rows[2]["questionnaire"] = "broken.xlsx"
    code, data, result = batch(workspace, model_env(llm_server), write_manifest(workspace, rows), "--engine", "ray")
    assert code == 1 and (data["succeeded"], data["failed"], data["engine"]) == (1, 2, "ray")
    assert data["answered"] == QUESTIONS and data["outputs"]["Beta Metals"] is None
    assert "Beta scan.pdf" in result.stderr and "Gamma Energy" in result.stderr
    statuses = [c.value for c in openpyxl.load_workbook(data["portfolio"])["Companies"]["B"]][1:]
    assert statuses == ["done", "failed", "failed"]
    assert len(llm_server.chat_requests()) == QUESTIONS * 3  # only Alpha's rows were asked


def test_unreadable_replies_are_counted_as_run_counts_them_and_asked_again(workspace, llm_server):
    check_unreadable_rows(workspace, llm_server, "ray")


def test_ctrl_c_leaves_no_ray_process_behind(workspace, llm_server):
    """A driver that starts its own local Ray, interrupted mid-run: every process of that instance ends."""
    llm_server.responder = responder()
    llm_server.latency_s = 0.5
    manifest = write_manifest(workspace, entries(workspace))
    env = {**os.environ, **model_env(llm_server, AUTOFILL_LLM__CONCURRENCY="1"), "PYTHONPATH": str(ROOT)}
    env.pop("RAY_ADDRESS", None)  # this session's Ray (ray.init sets it here): the driver is to start its own
    # Forked from the pre-imported process (tests/cli_process.py): this test is about the driver's own Ray
    # instance and Ctrl-C, not the interpreter's start; the driver still starts Ray, its raylet and workers.
    cmd = ["--workspace", str(workspace), "batch", str(manifest), "--json", "--engine", "ray"]
    proc = cli_process.popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=False)

    def alive(pids: set[int]) -> set[int]:
        out = subprocess.run(["ps", "-ww", "-eo", "pid,args"], capture_output=True, text=True).stdout
        return {int(line.split()[0]) for line in out.splitlines()[1:] if int(line.split()[0]) in pids
                and "<defunct>" not in line}

    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not llm_server.chat_requests():
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.1)
    started = descendants(proc.pid)
    names = subprocess.run(["ps", "-ww", "-o", "args=", "-p", ",".join(map(str, started))], capture_output=True,
                           text=True).stdout
    assert "raylet" in names and "ray::" in names, names  # its own instance, with workers
    proc.send_signal(signal.SIGINT)
    code, err = proc.wait(timeout=60), proc.stderr.read().decode()
    assert code == 130, err
    assert "interrupted" in err
    deadline = time.monotonic() + 20
    while alive(started) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert alive(started) == set()

