"""Temporary folders of interrupted runs are swept by the next run (autofill/tempdirs.py), and only
those: a folder whose process still runs (an ingest or report beside this one) is left alone."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autofill.ingest.pipeline import ingest_paths
from autofill.review.report import write_review_report
from autofill.settings import Settings
from autofill.store.chroma_store import open_store
from autofill.tempdirs import STALE_AFTER_S, make_temp_dir, owner_tag, sweep
from tests import pdf_factory as pf
from tests.fakes import FakeEmbedder
from tests.review_fixtures import PDF_NAME, make_output_workbook, make_report_pdf


def dead_pid() -> int:
    """The PID of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def leftover(folder, stem, pid=None, host=None):
    """What a run killed while writing leaves: a tagged temporary folder with a file in it."""
    tag = owner_tag()
    if pid is not None:
        tag = tag.rsplit("-", 1)[0] + f"-{pid}"
    if host is not None:
        tag = f"tmp-{host}-" + tag.rsplit("-", 1)[1]
    path = folder / f".{stem}.{tag}-abc123"
    path.mkdir(parents=True)
    (path / "part").write_text("half written")
    return path


def age(path, seconds):
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_only_the_leftovers_of_dead_processes_are_swept(tmp_path):
    mine = make_temp_dir(tmp_path, "index")
    assert mine.name.startswith(f".index.{owner_tag()}-")
    dead = leftover(tmp_path, "index", pid=dead_pid())
    other_host = leftover(tmp_path, "report", pid=dead_pid(), host="0badc0de")
    old_untagged = tmp_path / ".index.x1y2z3"
    old_untagged.mkdir()
    age(old_untagged, STALE_AFTER_S + 60)
    new_untagged = tmp_path / ".index.q9w8e7"
    new_untagged.mkdir()
    visible = tmp_path / "index.tmp-not-hidden"
    visible.mkdir()

    removed = sweep(tmp_path, legacy=lambda name: name.startswith(".index."))
    assert set(removed) == {dead, old_untagged}
    assert mine.exists() and other_host.exists() and new_untagged.exists() and visible.exists()
    age(other_host, STALE_AFTER_S + 60)  # another machine's: only once stale
    assert sweep(tmp_path) == [other_host]
    assert sweep(tmp_path / "missing") == []


def test_an_ingest_sweeps_the_keyword_index_left_half_written(workspace, tmp_path):
    settings = Settings(workspace=workspace)
    pdf = pf.make_text_pdf(tmp_path / "a.pdf", ["Water use at the mine was 2 GL in 2024."])
    ingest_paths(settings, "BHP", [pdf], embedder=FakeEmbedder())
    bm25 = settings.vectordb_dir / "bm25"
    collection = open_store(settings, "BHP").collection
    half = leftover(bm25, collection, pid=dead_pid())
    running = make_temp_dir(bm25, collection)  # this process is alive: another ingest's, untouched
    ingest_paths(settings, "BHP", [pdf], embedder=FakeEmbedder())  # unchanged: nothing else to write
    assert not half.exists() and running.exists()
    # The index and the per-document token lists it is rebuilt from (bm25_index.TokenCache).
    assert sorted(p.name for p in bm25.iterdir() if not p.name.startswith(".")) == [collection, f"{collection}.tokens"]


def test_a_review_report_sweeps_the_one_a_killed_run_left(tmp_path, workspace):
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf = make_report_pdf(docs / PDF_NAME)
    (tmp_path / "out").mkdir()
    out = make_output_workbook(tmp_path / "out" / "filled.xlsx")
    half = leftover(out.parent, "filled_review", pid=dead_pid())
    legacy = out.parent / ".filled_review-k3j4h5g6"  # named the way earlier versions did
    legacy.mkdir()
    age(legacy, STALE_AFTER_S + 60)
    write_review_report(Settings(workspace=workspace), out, pdf_paths={PDF_NAME: pdf})
    assert sorted(p.name for p in out.parent.iterdir()) == ["filled.xlsx", "filled_review"]


def test_no_multiprocessing_folder_is_left_after_kill_9_during_ingest(tmp_path, llm_server, request_cleanup):
    """`pymp-*` folders used to stay in the temp directory for good; the forkserver's folder is now a
    tagged one under <temp>/af-mp that the next ingest removes (and a finished ingest removes its own)."""
    import signal

    from tests.rows_helpers import cli, env_for

    import shutil
    import tempfile

    temp = Path(tempfile.mkdtemp(prefix="af", dir="/tmp"))  # short: the forkserver's socket lives under it
    request_cleanup.append(lambda: shutil.rmtree(temp, ignore_errors=True))
    env = {**env_for(llm_server), "TMPDIR": str(temp)}
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs2").mkdir()
    big = pf.make_text_pdf(tmp_path / "docs" / "long.pdf", [f"Page {i} " + "words and figures 12% " * 80
                                                            for i in range(150)])
    args = [sys.executable, "-m", "autofill", "--workspace", str(tmp_path), "ingest", "--company", "Kill Co",
            str(big.parent)]
    proc = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    folders: list = []
    while time.monotonic() < deadline and not folders:
        folders = list((temp / "af-mp").glob(".mp.tmp-*")) if (temp / "af-mp").is_dir() else []
        time.sleep(0.05)
    assert folders, "the ingest never started its parse helper"
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not list(temp.glob("pymp-*"))
    # At most the dead run's own tagged folder is left (its forkserver may remove it as it dies).
    assert {f.name for f in (temp / "af-mp").iterdir()} <= {folders[0].name}

    small = pf.make_text_pdf(tmp_path / "docs2" / "short.pdf", ["Renewable electricity made up 12% in FY2024."])
    assert cli(tmp_path, env, "ingest", "--company", "Kill Co", str(small)).returncode == 0
    assert not list(temp.glob("pymp-*")) and not list((temp / "af-mp").iterdir())


def test_a_long_temp_directory_keeps_multiprocessings_own_folder(tmp_path, monkeypatch):
    """Socket paths are limited (107 bytes): under a long TMPDIR nothing is redirected."""
    import multiprocessing.process as mp_process
    import tempfile

    from autofill.tempdirs import tagged_multiprocessing_dir

    long_dir = tmp_path / ("x" * 60)
    long_dir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long_dir))
    monkeypatch.setitem(mp_process.current_process()._config, "tempdir", None)
    assert tagged_multiprocessing_dir() is None
    assert mp_process.current_process()._config["tempdir"] is None  # multiprocessing makes its own, as before


@pytest.fixture
def request_cleanup():
    todo: list = []
    yield todo
    for fn in todo:
        fn()
