"""Parsing ahead of the embedder, in a helper process that never outlives the ingest.

All files of an ingest, one alone included, go to one helper process, which parses them in order and
sends each file's pages as they are parsed, BATCH_PAGES at a time: the ingest chunks and embeds one
batch while the helper parses the next, so a single large file is parsed at the embedder's pace as
several files are (ingest/pdf.py, PdfReader; ingest/chunking.py, ChunkStream). The helper parses the
next file while the last batches of this one embed.

A process, not a thread: parsing is Python-heavy and a parse thread holding the GIL slowed the
embedder's many small torch calls badly; the parser's own models (PyMuPDF layout, ONNX) then never
share the ingest's memory with torch; and a parser crash on a hostile PDF only fails that file (a
fresh helper takes the files after it). The helper imports only what parsing needs (it says which
heavy libraries it holds in its first message, and the tests check that it holds none).

No orphans: the helper is forked from a forkserver (never from the ingest with its torch and Chroma
threads), so it is the forkserver's child, not the ingest's, and it holds the pipes that would tell
the forkserver its parent is gone. After `kill -9` of the ingest, helper and forkserver used to run
on for ever (~0.8 GB). Now the helper watches the ingest's PID (a pidfd on Linux, polling elsewhere)
and exits the moment it is gone; on Linux it also asks the kernel for SIGKILL when its own parent
(the forkserver) dies. With the helper gone, the forkserver and multiprocessing's resource tracker
see their pipes close and exit by themselves.

Messages, helper to ingest, per file in the order given: ("start", sha256, page_count), then
("pages", [PageContent, ...]) per batch, then ("done", ParsedDocument, exact, warnings, seconds)
(the document's pages are left out when `exact`: the batches were the document) or, instead of any
of them, ("failed", error, seconds)."""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from autofill.errors import InputError
from autofill.ingest import ocr
from autofill.ingest.damage import check_pdf, quiet_pdf_library
from autofill.ingest.pdf import PdfReader
from autofill.settings import IngestSettings
from autofill.tempdirs import tagged_multiprocessing_dir

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1  # linux/prctl.h
POLL_S = 0.5  # where no pidfd is available: how often the helper checks that the ingest still runs


BATCH_PAGES = 16  # pages per message: ~3-40 chunks, a few seconds of embedding
# Libraries the helper has no use for (they would cost it seconds and hundreds of MB); see hello().
HEAVY = ("torch", "sentence_transformers", "transformers", "chromadb", "openai", "cohere", "openpyxl")


def stream_file(path: Path, ingest: IngestSettings, batch: int = BATCH_PAGES) -> Iterator[tuple]:
    """Parse one file into the messages above; a bad file becomes a "failed" message, never an
    exception."""
    quiet_pdf_library()
    t = time.perf_counter()
    ocr.take_failures()  # another file's
    try:
        with PdfReader(path, ingest) as reader:
            yield ("start", reader.sha256, reader.page_count)
            while not reader.done:
                yield ("pages", reader.read(batch))
            doc, exact = reader.finish()
        found = check_pdf(path, doc, ingest) + ocr.take_failures()
        yield ("done", replace(doc, pages=[]) if exact else doc, exact, found, time.perf_counter() - t)
    except InputError as exc:
        yield ("failed", str(exc), time.perf_counter() - t)
    except Exception as exc:  # noqa: BLE001 - a parser crash on one odd file must not stop the others
        yield ("failed", f"could not be parsed ({type(exc).__name__}: {exc})", time.perf_counter() - t)


def hello() -> tuple:
    """The helper's first message: its PID and the heavy libraries it has imported (none, normally)."""
    return ("hello", os.getpid(), sorted(m for m in HEAVY if m in sys.modules))


def _serve(paths: list[Path], ingest: IngestSettings, conn: Any, parent: int) -> None:
    """The helper's main: parse `paths` in order and send their messages on `conn`. A thread sends, so
    that parsing goes on while the ingest is busy embedding and not reading."""
    import queue

    die_with(parent)
    out: queue.SimpleQueue = queue.SimpleQueue()

    def send() -> None:
        while (msg := out.get()) is not None:
            conn.send(msg)

    sender = threading.Thread(target=send, name="send", daemon=True)
    sender.start()
    out.put(hello())
    for path in paths:
        for msg in stream_file(path, ingest):
            out.put(msg)
    out.put(None)
    sender.join()
    conn.close()


# ------------------------------------------------------------------------------ dying with the ingest


def _exit_now() -> None:
    os._exit(0)  # no cleanup to do: the helper holds nothing but its current parse


def _ask_kernel_for_death_signal() -> None:
    """Linux: SIGKILL this process when its parent exits (prctl PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):  # no libc / prctl: the watchdog below still works
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists
        return True
    return True


def _watch(pid: int) -> None:
    """Block until process `pid` has exited, then end this process."""
    pidfd = None
    with contextlib.suppress(AttributeError, OSError):
        pidfd = os.pidfd_open(pid)  # Linux 5.3+: readable once the process exits; immune to PID reuse
    if pidfd is not None:
        select.select([pidfd], [], [])  # waits without holding the GIL
        _exit_now()
    while _alive(pid):
        time.sleep(POLL_S)
    _exit_now()


def die_with(pid: int) -> None:
    """Make this process end when process `pid` (the ingest) ends, however it ends. A pool initializer
    (it runs first thing in the helper)."""
    _ask_kernel_for_death_signal()

    quiet_pdf_library()
    if not _alive(pid):  # it died while this helper was starting
        _exit_now()
    threading.Thread(target=_watch, args=(pid,), name="watch-ingest", daemon=True).start()


# ------------------------------------------------------------------------------ the parser


class HelperDied(Exception):
    pass


CRASHED = "the PDF parser stopped on this file"  # a "failed" message starting so is worth one retry


def how_it_ended(code: int | None) -> str:
    """A helper's exit code in words: the cause of a crash, for the file's failure message."""
    if code is None:
        return "it closed its pipe without exiting"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = {"SIGKILL": "the kernel's out-of-memory killer, or a process manager",
               "SIGSEGV": "a crash inside the PDF library", "SIGABRT": "a crash inside the PDF library",
               "SIGBUS": "a crash inside the PDF library"}.get(name, "")
        return f"killed by {name}" + (f": {why}" if why else "")
    return f"exit code {code}"


class Parser:
    """Parses files ahead of the embedder in a helper process (see the module docstring). stream(path)
    must be called for the files in the order given."""

    def __init__(self, paths: list[Path], ingest: IngestSettings):
        self.ingest = ingest
        self._todo = list(paths)
        self._proc: Any = None
        self._conn: Any = None
        self._pending: tuple | None = None
        self.heavy: list[str] = []  # heavy libraries the helper holds (should stay empty)
        if self._todo:
            self._start()

    def _start(self) -> None:
        import multiprocessing

        # forkserver: the helper is forked from a clean server process, never from this one with its
        # torch and Chroma threads; spawn where forkserver is unavailable (Windows). The server preloads
        # this module only, not __main__ (the CLI), so the helper imports what parsing needs and no more.

        tagged_multiprocessing_dir()  # no pymp-* folder left in the temp directory after a kill -9
        if "forkserver" in multiprocessing.get_all_start_methods():
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload([__name__])
        else:
            ctx = multiprocessing.get_context("spawn")
        reader, writer = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_serve, args=(self._todo, self.ingest, writer, os.getpid()),
                                 name="autofill-parse", daemon=True)
        self._proc.start()
        writer.close()  # the helper holds the only writing end: its death reads as end of file here
        self._conn = reader

    def _recv(self) -> tuple:
        if self._pending is not None:
            msg, self._pending = self._pending, None
            return msg
        try:
            msg = self._conn.recv()
            if msg[0] == "hello":
                self.heavy = msg[2]
                if self.heavy:
                    log.debug("the parse helper has imported %s", ", ".join(self.heavy))
                msg = self._conn.recv()
        except (EOFError, OSError) as exc:
            raise HelperDied() from exc
        return msg

    def stream(self, path: Path) -> Iterator[tuple]:
        """The messages for `path` (see the module docstring), ending with "done" or "failed". Page
        batches that arrived while the caller was busy come merged into one "pages" message."""
        if not self._todo or self._todo[0] != path:
            raise ValueError(f"{path} is not the next file of this parser")
        self._todo.pop(0)
        try:
            while True:
                msg = self._recv()
                if msg[0] == "pages":
                    pages = list(msg[1])
                    while self._pending is None and self._conn is not None and self._conn.poll(0):
                        more = self._recv()
                        if more[0] == "pages":
                            pages.extend(more[1])
                        else:
                            self._pending = more
                    msg = ("pages", pages)
                yield msg
                if msg[0] in ("done", "failed"):
                    return
        except HelperDied:  # a crash in the PDF library: this file is the one it was parsing
            if self._proc is not None:
                self._proc.join(timeout=5)  # its exit code says how it ended
            code = self._proc.exitcode if self._proc is not None else None
            log.debug("the parse helper died while parsing %s (exit code %s)", path, code)
            self._stop()
            if self._todo:
                self._start()  # a fresh helper for the files after this one
            yield ("failed", f"{CRASHED} ({how_it_ended(code)})", 0.0)

    def _stop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join(timeout=10)
            self._proc = None
        self._pending = None

    def close(self) -> None:
        self._stop()
