"""tests/cli_process.py: a CLI command forked from the pre-imported process says and does what a cold
`python -m autofill` does (exit code, stdout, stderr, environment, working folder), runs concurrently
from threads, streams and takes signals as a server, and is killed at its timeout. (Its TMPDIR: the
forked ingest of tests/test_tempdirs.py puts the multiprocessing folder under the TMPDIR it is given.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests import cli_process
from tests.review_app_helpers import server_env
from tests.review_fixtures import make_output_workbook

ROOT = Path(__file__).resolve().parents[1]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOFILL_", "OPENAI_", "COHERE_"))}
    return {**env, "PYTHONPATH": str(ROOT), "AUTOFILL_LLM__PROVIDER": "none", **extra}


def _settings(stdout: str) -> dict:
    return {s["key"]: s["value"] for s in json.loads(stdout)["settings"]}


@pytest.mark.parametrize("args", [
    ["companies", "--json"],
    ["config", "--json"],
    ["run", "--company", "Nobody", "--questionnaire", "missing.xlsx"],  # exit 2, one line
    ["no-such-command"],  # click's usage error
])
def test_a_forked_command_says_what_a_cold_one_says(tmp_path, args):
    (tmp_path / "autofill.toml").write_text("[retrieval]\nfinal_k = 4\n", encoding="utf-8")
    env = _env(AUTOFILL_RETRIEVAL__CANDIDATES="25")
    forked = cli_process.run(args, env=env, cwd=tmp_path, timeout=120)
    cold = cli_process.run(args, env={**env, cli_process.COLD: "1"}, cwd=tmp_path, timeout=120)
    assert (forked.returncode, forked.stdout, forked.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    if args[0] == "config":  # the command read this call's folder and environment, not the zygote's
        shown = _settings(forked.stdout)
        assert shown["workspace"] == str(tmp_path) and shown["retrieval.final_k"] == "4"
        assert shown["retrieval.candidates"] == "25"


def test_each_forked_command_gets_its_own_environment_folder_and_temp_dir(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    for folder, k in ((first, "3"), (second, "5")):
        folder.mkdir()
        (folder / "tmp").mkdir()
    runs = [cli_process.run(["config", "--json"], env=_env(AUTOFILL_RETRIEVAL__FINAL_K=k, TMPDIR=str(f / "tmp")),
                            cwd=f, timeout=120) for f, k in ((first, "3"), (second, "5"))]
    for proc, folder, k in zip(runs, (first, second), ("3", "5")):
        assert proc.returncode == 0, proc.stderr
        shown = _settings(proc.stdout)
        assert shown["workspace"] == str(folder) and shown["retrieval.final_k"] == k


def test_forked_commands_run_side_by_side_from_threads(tmp_path):
    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(lambda i: cli_process.run(["companies", "--json"], env=_env(), cwd=tmp_path,
                                                        timeout=120), range(8)))
    assert [p.returncode for p in done] == [0] * 8
    assert all(json.loads(p.stdout) == {"companies": []} for p in done)


def test_a_forked_server_streams_its_output_takes_a_signal_and_a_timeout_kills_it(tmp_path, workspace):
    """popen: the review server's first line is read while it runs, SIGTERM stops it as it would a cold one;
    run's timeout kills a command that does not end and raises TimeoutExpired, as subprocess.run does."""
    path = make_output_workbook(tmp_path / "filled.xlsx")
    args = ["--workspace", str(workspace), "review", str(path), "--no-browser", "--json", "--port", "0"]
    server = cli_process.popen(args, env=server_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = json.loads(server.stdout.readline())
    assert first["url"].startswith("http://127.0.0.1:") and server.poll() is None
    server.terminate()
    out, err = server.communicate(timeout=60)
    assert server.returncode == 0, err

    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        cli_process.run(args, env=server_env(), timeout=3)
    assert time.monotonic() - started < 60
    # The killed server left no process behind: its lock file's owner is gone and a new server starts.
    again = cli_process.popen(args, env=server_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert json.loads(again.stdout.readline())["url"]
    finally:
        again.terminate()
        again.communicate(timeout=60)


def _dispositions(pid: int) -> dict[str, str]:
    """The signals a process ignores, catches and blocks (the kernel's masks in /proc/PID/status)."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":\t", 1) for line in lines if line.startswith(("SigIgn", "SigCgt", "SigBlk")))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_forked_server_ignores_catches_and_blocks_the_signals_a_cold_one_does(tmp_path, workspace):
    """The interpreter ignores SIGPIPE (a write to a closed pipe or socket is an error, not the end of
    the process); a forked child once set it back to the default, and a review server whose browser
    tab went away while a reply was on its way was killed by it."""
    path = make_output_workbook(tmp_path / "filled.xlsx")
    seen = {}
    for how, extra in (("forked", {}), ("cold", {cli_process.COLD: "1"})):
        args = ["--workspace", str(workspace), "review", str(path), "--no-browser", "--json", "--port", "0"]
        server = cli_process.popen(args, env={**server_env(), **extra}, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        try:
            assert json.loads(server.stdout.readline())["url"]  # serving: its handlers are in place
            seen[how] = _dispositions(server.pid)
        finally:
            server.terminate()
            _, err = server.communicate(timeout=60)
        assert server.returncode == 0, err
    assert seen["forked"] == seen["cold"]
