"""autofill/imports.py: no import races in threaded runs.

The end-to-end test reproduces what users saw (rows failing with `partially initialized module 'httpx'`):
fresh `autofill run` processes (cold imports), many rows at concurrency 8 against the loopback
OpenAI-compatible server, the response cache off so every row calls the model while a background thread
opens the store's Chroma (importing chromadb, which imports httpx), some of the runs with every CPU
busy. Before the fix 2 of 3 such runs failed 14-30 of 30 rows on this machine."""

from __future__ import annotations

import sys
import threading
import time
import types

import pytest

from autofill import imports
from tests.llm_server import LLMServer, by_marker
from tests.race_helpers import busy_cpus, ingested_workspace, many_rows, run_once


@pytest.mark.slow  # fresh `autofill` processes: a run's cold imports and model load each
def test_fresh_process_runs_answer_every_row_with_cold_imports(tmp_path):
    from tests.answer_helpers import MARKERS

    ws = ingested_workspace(tmp_path)
    questionnaire = many_rows(tmp_path, 30)
    with LLMServer(latency_s=0.02) as server:
        server.responder = by_marker(MARKERS)
        outcomes = []
        for i, busy in enumerate((False, True, True)):
            if busy:
                with busy_cpus():
                    outcomes.append(run_once(ws, questionnaire, tmp_path / f"out{i}", server.base_url))
            else:
                outcomes.append(run_once(ws, questionnaire, tmp_path / f"out{i}", server.base_url))
    for outcome in outcomes:
        assert (outcome.code, outcome.failed, outcome.unparsed, outcome.answered) == (0, 0, 0, 30), outcome.errors


def test_load_waits_for_a_module_another_thread_is_importing(tmp_path, monkeypatch):
    """A module in sys.modules whose body is still running is not handed out."""
    (tmp_path / "slow_mod_for_imports.py").write_text(
        "import time\ntime.sleep(0.5)\nVALUE = 42\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("slow_mod_for_imports", None)
    first = threading.Thread(target=imports.load, args=("slow_mod_for_imports",))
    first.start()
    deadline = time.monotonic() + 5
    while "slow_mod_for_imports" not in sys.modules and time.monotonic() < deadline:
        time.sleep(0.005)
    assert "slow_mod_for_imports" in sys.modules  # half-imported now
    assert imports.load("slow_mod_for_imports").VALUE == 42
    first.join()
    sys.modules.pop("slow_mod_for_imports", None)


def test_load_raises_a_missing_module():
    with pytest.raises(ImportError):
        imports.load("autofill_no_such_module_xyz")


def test_import_pymupdf_never_returns_a_half_imported_module(monkeypatch):
    """pdflib.import_pymupdf used to return whatever sys.modules held; a page look-up then failed on
    its first attribute, was swallowed, and the citation silently fell back to the first page."""
    from autofill import pdflib

    real = pdflib.import_pymupdf()
    partial = types.ModuleType("pymupdf")
    partial.__spec__ = types.SimpleNamespace(_initializing=True)
    monkeypatch.setitem(sys.modules, "pymupdf", partial)
    released = threading.Event()

    def finish() -> None:  # the other thread's import completes a moment later
        time.sleep(0.2)
        sys.modules["pymupdf"] = real
        released.set()

    threading.Thread(target=finish).start()
    monkeypatch.setattr(pdflib.importlib, "import_module", lambda name: (released.wait(5), sys.modules[name])[1])
    assert pdflib.import_pymupdf() is real


def test_page_locator_fails_loudly_when_pymupdf_cannot_be_imported(tmp_path, monkeypatch):
    from autofill import pdflib
    from autofill.answer.pages import PageLocator
    from autofill.records import Passage
    from tests.pdf_factory import make_text_pdf

    pdf = make_text_pdf(tmp_path / "a.pdf", ["alpha page one", "beta page two 42"])

    def broken():
        raise ImportError("pymupdf is broken")

    monkeypatch.setattr(pdflib, "import_pymupdf", broken)
    doc = types.SimpleNamespace(source_path=str(pdf))
    locator = PageLocator({"a.pdf": doc})
    passage = Passage(chunk_id="c", file_name="a.pdf", page_start=1, page_end=2, section="", text="x")
    with pytest.raises(ImportError):
        locator.page_of(passage, "beta 42")
