"""autofill/cli_output.py: logging configured once (-v/-q/--debug), warnings as `autofill: warning: ...`
on stderr, library noise only with --debug, and the Reporter's bars only on a terminal."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from autofill.cli_output import configure_logging, make_reporter
from autofill.reporting import as_reporter

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def restore_logging():
    ours, root = logging.getLogger("autofill"), logging.getLogger()
    saved = (list(ours.handlers), ours.level, list(root.handlers), root.level)
    yield
    ours.handlers[:], ours.level, root.handlers[:] = saved[0], saved[1], saved[2]
    root.setLevel(saved[3])
    logging.captureWarnings(False)


def _emit_everything():
    log = logging.getLogger("autofill.answer.pipeline")
    log.debug("row Sheet!3 took 1.2 s")
    log.info("Resuming: 2 of 5 rows were finished by an earlier run.")
    log.warning("reranker 'llm' needs an LLM and none is configured; using 'none'")
    logging.getLogger("chromadb.telemetry").warning("telemetry event failed")
    warnings.warn("invalid value encountered in divide", RuntimeWarning, stacklevel=1)


@pytest.mark.parametrize("flags,shown,hidden", [
    ({}, ["Resuming: 2 of 5", "autofill: warning: reranker 'llm'"],
     ["row Sheet!3", "telemetry", "invalid value"]),
    ({"quiet": True}, ["autofill: warning: reranker 'llm'"], ["Resuming", "row Sheet!3", "telemetry"]),
    ({"verbose": 1}, ["autofill: debug: autofill.answer.pipeline: row Sheet!3", "Resuming", "autofill: warning:"],
     ["telemetry", "invalid value"]),
    ({"debug": True}, ["row Sheet!3", "Resuming", "autofill: warning: telemetry event failed",
                       "invalid value encountered in divide"], []),
])
def test_levels(restore_logging, capsys, flags, shown, hidden):
    configure_logging(**flags)
    _emit_everything()
    captured = capsys.readouterr()
    assert captured.out == ""  # stdout is for results and JSON only
    for text in shown:
        assert text in captured.err, (flags, text, captured.err)
    for text in hidden:
        assert text not in captured.err, (flags, text, captured.err)
    assert captured.err.count("reranker 'llm'") == 1  # printed once, whatever propagates where


def test_configuring_twice_does_not_double_lines(restore_logging, capsys):
    configure_logging()
    configure_logging()
    logging.getLogger("autofill.x").warning("once")
    assert capsys.readouterr().err == "autofill: warning: once\n"


def test_reporters_send_messages_to_logging_and_bars_only_to_a_terminal(restore_logging, capsys):
    configure_logging()
    rep = make_reporter(as_json=False)  # stderr here is not a terminal
    assert rep.bars is False and make_reporter(as_json=True).bars is False
    bar = rep.bar("Answering", 3, "rows")
    bar.advance()
    bar.note("Sheet!3")
    bar.close()
    rep.message("Review report: r.html")
    rep.warning("the PDF moved")
    assert capsys.readouterr().err == "Review report: r.html\nautofill: warning: the PDF moved\n"
    assert as_reporter(None).bar("x", 5).advance() is None  # library use: silent bars


BAR_SCRIPT = """
import time
from autofill.cli_output import configure_logging, make_reporter
configure_logging()
rep = make_reporter()
assert rep.bars, "stderr is a terminal here"
bar = rep.bar("Answering", 3, "rows")
for key in ("Sheet!2", "Sheet!3", "Sheet!4"):
    bar.note(key)
    time.sleep(0.05)
    bar.advance()
    if key == "Sheet!3":
        rep.warning("row Sheet!3 failed")
bar.close()
print("done")
"""


def test_a_bar_with_position_and_eta_on_a_terminal():
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", BAR_SCRIPT], stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    assert proc.wait(timeout=60) == 0
    os.close(master)
    text = out.decode("utf-8", "replace")
    assert "Answering" in text and "3/3" in text and "done" in text
    assert "Sheet!2" in text  # the note beside the bar
    # a warning while the bar is up starts on a clean line, then the bar carries on
    assert "\r\x1b[Kautofill: warning: row Sheet!3 failed" in text
