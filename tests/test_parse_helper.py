"""The parse helper process never outlives the ingest (autofill/ingest/parse_helper.py).

A real ingest runs in a child Python process with several PDFs, so it parses them in a helper process
(forked from a forkserver) while a slow embedder holds it in the embedding step; the test kills it with
SIGKILL, the one signal it cannot catch, and checks that every process it started is gone within a few
seconds. Before the watchdog, the forkserver and the helper ran on for ever."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest


REPO = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    from autofill.ingest.pipeline import ingest_paths
    from autofill.settings import Settings
    from tests.fakes import FakeEmbedder

    class Stuck(FakeEmbedder):
        def embed_documents(self, texts):
            print("EMBEDDING", flush=True)
            time.sleep(600)

    if __name__ == "__main__":
        ingest_paths(Settings(workspace=Path(sys.argv[1])), "ACME", sys.argv[2:], embedder=Stuck())
''')


def descendants(pid: int) -> set[int]:
    """All live descendants of `pid`, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z":  # zombies have exited
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] != "Z"


def many_pages_pdf(path: Path, pages: int) -> Path:
    """`pages` pages of 42 words each (~130 bytes a page in the helper's messages), written directly
    with PyMuPDF: quick to write and to parse (~2 ms a page)."""
    import pymupdf

    text = " ".join(f"Site {n} used {n * 7} ML." for n in range(10))
    doc = pymupdf.open()
    for k in range(pages):
        doc.new_page().insert_textbox(pymupdf.Rect(50, 50, 560, 800), f"Page {k}. {text}", fontsize=10)
    doc.save(path)
    return path


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_9_of_an_ingest_leaves_no_helper_behind(tmp_path):
    # The files hold more text than a pipe buffers (64 KB on Linux): with the ingest stuck in its first
    # embedding, the helper's sender blocks, so the helper is surely still there when the test looks.
    # (Three one-line files were parsed and the helper gone before the first embedding, under load.)
    pdfs = [many_pages_pdf(tmp_path / f"r{i}.pdf", pages=300) for i in range(3)]
    script = tmp_path / "ingest_child.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path / "ws"), *map(str, pdfs)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=REPO, text=True)
    started: set[int] = set()
    try:
        assert proc.stdout.readline().strip() == "EMBEDDING"  # the helper has been started by now
        started = descendants(proc.pid)
        helpers = [p for p in started if "forkserver" in Path(f"/proc/{p}/cmdline").read_text()]
        assert len(helpers) >= 2, started  # the forkserver and the parse helper it forked
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(alive(p) for p in started):
            time.sleep(0.1)
        left = [p for p in started if alive(p)]
        assert not left, f"still running after the ingest was killed: {left}"
    finally:  # whatever went wrong, leave nothing of ours running
        if proc.poll() is None:
            started |= descendants(proc.pid)
            proc.kill()
        for pid in started:
            if alive(pid) and "multiprocessing" in Path(f"/proc/{pid}/cmdline").read_text():
                os.kill(pid, signal.SIGKILL)


def test_the_watchdog_ends_a_process_when_the_watched_one_ends(tmp_path):
    """die_with in a plain child process: the child exits once the process it watches has ended."""
    watched = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    code = textwrap.dedent(f'''
        import time
        from autofill.ingest.parse_helper import die_with
        die_with({watched.pid})
        print("WATCHING", flush=True)
        time.sleep(600)
    ''')
    watcher = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONPATH=str(REPO)))
    try:
        assert watcher.stdout.readline().strip() == "WATCHING"
        time.sleep(0.3)
        assert watcher.poll() is None  # the watched process is alive: the watcher stays
        watched.kill()
        watched.wait()
        assert watcher.wait(timeout=10) == 0
    finally:
        for p in (watched, watcher):
            if p.poll() is None:
                p.kill()


def _layout_after_parsing(path: str) -> tuple[bool, list[str]]:
    """In a process forked from the forkserver, as the parse helper is: parse `path` as the helper does;
    whether PyMuPDF's layout model was loaded, and the kinds of the blocks read."""
    from autofill.ingest.parse_helper import stream_file
    from autofill.settings import IngestSettings

    kinds = [block.kind for msg in stream_file(Path(path), IngestSettings(ocr=False)) if msg[0] == "pages"
             for page in msg[1] for block in page.blocks]
    return "pymupdf.layout" in sys.modules, kinds


def test_the_helper_builds_the_layout_model_only_for_a_page_that_may_hold_a_table(tmp_path):
    """The layout model (about 0.8 CPU-s per helper, one helper per ingest) serves table detection alone:
    a report with no page that looks tabular is parsed without it; the sample's table is still found.
    Before, the helper's first `import pymupdf` built it for every ingest."""
    import importlib.util
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from tests.answer_helpers import filler_texts
    from tests.pdf_factory import make_sample_company_pdf, make_text_pdf

    if importlib.util.find_spec("pymupdf.layout") is None:
        pytest.skip("pymupdf-layout is not installed: no layout model to defer")
    text = make_text_pdf(tmp_path / "text.pdf", filler_texts(3))
    sample = make_sample_company_pdf(tmp_path / "sample.pdf")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["autofill.ingest.parse_helper"])  # as Parser._start
    for pdf, layout in ((text, False), (sample, True)):
        with ProcessPoolExecutor(1, mp_context=ctx) as pool:  # a fresh process for each file
            loaded, kinds = pool.submit(_layout_after_parsing, str(pdf)).result(timeout=300)
        assert loaded is layout and ("table" in kinds) is layout, (pdf.name, loaded, kinds)
