"""Operating the CLI day to day on shared machines: an output open in Excel or LibreOffice is refused
before any model call, permission problems are one line naming the path, --debug shows the traceback of
an unexpected error, and `forget` asks on a terminal or needs --yes.

The store is built through the CLI with the OpenAI embedder against the loopback server (real openai
SDK, deterministic vectors), so `run` goes through the same CLI path a user's does."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from autofill.cli import OneLineErrorGroup, cli, handle_errors
from tests.answer_helpers import COMPANY, FACTS, MARKERS, SAMPLE, make_questionnaire
from tests.llm_server import by_marker
from tests.pdf_factory import make_sample_company_pdf

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def workspace(tmp_path, llm_server):
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    pdf = make_sample_company_pdf(ws / "docs" / SAMPLE)
    env = {"OPENAI_BASE_URL": llm_server.base_url, "OPENAI_API_KEY": "sk-test"}
    runner = CliRunner(env=env)
    out = runner.invoke(cli, ["--workspace", str(ws), "ingest", "--company", COMPANY, "--embedder", "openai",
                              str(pdf), "--json"])
    assert out.exit_code == 0, out.output
    llm_server.responder = by_marker(MARKERS)
    return ws, runner, make_questionnaire(ws / "q.xlsx", FACTS[:2])


def run_args(ws, questionnaire, *extra):
    return ["--workspace", str(ws), "run", "--company", COMPANY, "--questionnaire", str(questionnaire),
            "--out", str(ws / "out"), "--no-cache", *extra]


@pytest.mark.parametrize("lock", ["~$q_Northwind_Metals_filled.xlsx", ".~lock.q_Northwind_Metals_filled.xlsx#"])
def test_output_open_in_an_office_suite_is_refused_before_any_model_call(workspace, llm_server, lock):
    ws, runner, questionnaire = workspace
    (ws / "out").mkdir()
    (ws / "out" / lock).write_bytes(b"owner")
    before = llm_server.count("chat")
    out = runner.invoke(cli, run_args(ws, questionnaire))
    app = "Excel" if lock.startswith("~$") else "LibreOffice"
    assert out.exit_code == 2
    assert out.stderr.startswith(f"autofill: close q_Northwind_Metals_filled.xlsx in {app} first")
    assert out.stderr.count("\n") == 1 and out.stdout == ""
    assert llm_server.count("chat") == before  # no model call was made, none paid for
    assert [p.name for p in (ws / "out").iterdir()] == [lock]  # nothing written
    assert not (ws / "reports_out" / ".checkpoints").exists()

    # --live fills the questionnaire open in Excel (its lock is expected) but cannot drive LibreOffice.
    (ws / "out" / lock).unlink()
    (ws / ".~lock.q.xlsx#").write_bytes(b"owner")
    out = runner.invoke(cli, run_args(ws, questionnaire, "--live"))
    assert out.exit_code == 2 and out.stderr.startswith("autofill: close q.xlsx in LibreOffice first")
    assert llm_server.count("chat") == before
    (ws / ".~lock.q.xlsx#").unlink()
    (ws / "out" / lock).write_bytes(b"owner")

    # Closed in Excel: the same command runs; the summary goes to stdout like every command's.
    (ws / "out" / lock).unlink()
    out = runner.invoke(cli, run_args(ws, questionnaire))
    assert out.exit_code == 0, out.output
    assert f"{COMPANY}: 2 question rows, 2 answered, 0 failed" in out.stdout
    assert "Output: " in out.stdout and "Review report: " in out.stdout
    assert llm_server.count("chat") == before + 6


def test_json_run_prints_one_line_and_warnings_stay_on_stderr(workspace, llm_server):
    ws, runner, questionnaire = workspace
    out = runner.invoke(cli, run_args(ws, questionnaire, "--json"))
    assert out.exit_code == 0, out.output
    (line,) = out.stdout.splitlines()
    data = json.loads(line)
    assert data["answered"] == 2 and data["report"]

    # The review report of that output, with its PDF gone: a warning in our format, under -q and --json too.
    (ws / "docs" / SAMPLE).rename(ws / "moved.pdf")
    for flags in ([], ["-q"]):
        res = runner.invoke(cli, [*flags, "--workspace", str(ws), "report", data["output"], "--json"])
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["report"]
        assert "autofill: warning: PDF not found" in res.stderr


def _tiny_group():
    @click.group(cls=OneLineErrorGroup)
    @click.option("--debug", is_flag=True)
    @click.pass_context
    def group(ctx, debug):
        ctx.obj = {"debug": debug}

    @group.command()
    @click.argument("kind")
    @handle_errors
    def boom(kind):
        if kind == "permission":
            raise PermissionError(13, "Permission denied", "/srv/shared/reports_out/q_filled.xlsx")
        raise RuntimeError("something nobody expected")

    return group


def test_debug_shows_the_traceback_of_an_unexpected_error():
    group = _tiny_group()
    plain = CliRunner().invoke(group, ["boom", "x"])
    assert plain.exit_code == 1 and plain.stderr.count("\n") == 1
    assert "unexpected error: RuntimeError: something nobody expected (run with --debug" in plain.stderr
    debug = CliRunner().invoke(group, ["--debug", "boom", "x"])
    assert debug.exit_code == 1
    assert "Traceback (most recent call last)" in debug.stderr and 'raise RuntimeError("something' in debug.stderr
    assert debug.stderr.rstrip().endswith("unexpected error: RuntimeError: something nobody expected")


def test_a_permission_error_anywhere_is_one_line_naming_the_path_exit_2():
    out = CliRunner().invoke(_tiny_group(), ["boom", "permission"])
    assert out.exit_code == 2 and out.stderr.count("\n") == 1
    assert "permission denied: /srv/shared/reports_out/q_filled.xlsx" in out.stderr


def test_a_read_only_workspace_is_one_line_exit_2(tmp_path, llm_server):
    from tests.test_fileio import unwritable

    pdf = make_sample_company_pdf(tmp_path / SAMPLE)
    ws = tmp_path / "ws"
    runner = CliRunner(env={"OPENAI_BASE_URL": llm_server.base_url, "OPENAI_API_KEY": "sk-test"})
    with unwritable(ws):
        out = runner.invoke(cli, ["--workspace", str(ws), "ingest", "--company", COMPANY, "--embedder", "openai",
                                  str(pdf), "--json"])
    assert out.exit_code == 2, out.output
    assert out.stderr.count("\n") == 1 and "permission denied" in out.stderr and str(ws) in out.stderr


# ------------------------------------------------------------------------------------ forget


def _store_files(ws, runner) -> list[str]:
    out = runner.invoke(cli, ["--workspace", str(ws), "companies", "--json"])
    return [f for c in json.loads(out.stdout)["companies"] for f in c["files"]]


def test_forget_without_a_terminal_needs_yes_and_deletes_nothing(workspace):
    ws, runner, _ = workspace
    out = runner.invoke(cli, ["--workspace", str(ws), "forget", "--company", COMPANY])
    assert out.exit_code == 2 and out.stderr.count("\n") == 1
    assert "add --yes to confirm" in out.stderr and str(ws / "vectordb") in out.stderr
    out = runner.invoke(cli, ["--workspace", str(ws), "forget", "--company", COMPANY, "--doc", SAMPLE])
    assert out.exit_code == 2 and f"forget would delete {SAMPLE}" in out.stderr
    assert _store_files(ws, runner) == [SAMPLE]
    out = runner.invoke(cli, ["--workspace", str(ws), "forget", "--company", COMPANY, "--yes"])
    assert out.exit_code == 0 and f"Forgot the evidence store for {COMPANY}" in out.stdout
    assert _store_files(ws, runner) == []


def _on_a_terminal(args: list[str], answer: bytes, env: dict) -> tuple[int, str]:
    """Run `python -m autofill ARGS` with a pseudo-terminal as stdin/stdout/stderr, typing `answer`
    once the question shows."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "autofill", *args], stdin=slave, stdout=slave, stderr=slave,
                            env=env, close_fds=True)
    os.close(slave)
    seen, typed, deadline = b"", False, time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if not typed and b"[y/N]" in seen:
                os.write(master, answer)
                typed = True
        elif proc.poll() is not None:
            break
    code = proc.wait(timeout=30)
    os.close(master)
    return code, seen.decode("utf-8", "replace")


def test_forget_asks_on_a_terminal(workspace):
    ws, runner, _ = workspace
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["--workspace", str(ws), "forget", "--company", COMPANY]
    code, text = _on_a_terminal(args, b"n\n", env)
    assert code == 1 and f"Delete the evidence store for {COMPANY} (1 document" in text
    assert "nothing deleted" in text and _store_files(ws, runner) == [SAMPLE]
    code, text = _on_a_terminal(args, b"y\n", env)
    assert code == 0 and f"Forgot the evidence store for {COMPANY}" in text
    assert _store_files(ws, runner) == []
