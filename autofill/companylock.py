"""Commands on one company take turns (issue 43): readers of a company's store (`run`, `ask`, the review
app's re-answer, and `batch` and `eval` through run) hold its turn lock shared; writers (every write of
the store: `ingest`, `forget`, through `CompanyStore.writing`) hold it exclusive.

Why a writer excludes readers, ingest included: a run reads the store's manifest once, when it opens,
and every row of it must cite that same version of the documents (the Run info sheet records them, the
checkpoint keeps passages by chunk id, the multilingual index is built from the chunks). An ingest that
replaced a document halfway through a run would leave rows citing pages of a version that is gone; a
`forget` halfway through one made its remaining rows fail (`Collection ... does not exist`) and let
the run write response-cache entries for a company `forget` had reported as removed. So:

- a reader waits for a writer (up to `store.lock_timeout_s`, saying once whom it waits for), then
  refuses with one line naming the writer;
- `ingest` waits for readers the same way (a run ends; the ingest then goes ahead);
- `forget` refuses at once while a reader or another writer holds the company, naming it (command, PID,
  host, since when): it never waits to delete what someone is using, and deletes nothing.

The lock is `vectordb/.turns/<collection>.lock`, held with flock (the kernel releases it when the
process dies, kill -9 included); each holding process writes `<collection>.<pid>.json` beside it (its
command, PID, host, mode and since when) for the messages, removed when it lets go (a killed holder's
is ignored: its PID is gone). Where flock is missing (Windows) commands do not take turns. Within a
process the turn is re-entrant: the review app's threads share one, and a writer inside a reader of
the same process (none today) converts the lock."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from autofill.collection_names import collection_name
from autofill.errors import InputError
from autofill.tempdirs import pid_alive

log = logging.getLogger(__name__)

SHARED, EXCLUSIVE = "shared", "exclusive"
FOLDER = ".turns"
_POLL_S = 0.1


def lock_path(vectordb: Path, collection: str) -> Path:
    """The company's turn lock (store/derived.py lists it among the files a company's store derives)."""
    return Path(vectordb) / FOLDER / f"{collection}.lock"


def _holder_path(vectordb: Path, collection: str, pid: int) -> Path:
    return vectordb / FOLDER / f"{collection}.{pid}.json"


def _command(label: str) -> str:
    """The command the user ran ("autofill batch", "autofill review"), else `label`."""
    try:
        import click

        ctx = click.get_current_context(silent=True)
    except ImportError:  # pragma: no cover - click is a dependency
        ctx = None
    if ctx is not None:
        names = ctx.command_path.split()[1:]
        if names:
            return " ".join(["autofill", *names])
    return f"autofill {label}"


def holders(vectordb: Path, collection: str) -> list[dict[str, Any]]:
    """The live processes (other than this one) that hold the company's turn, as their records say."""
    found = []
    for path in sorted((vectordb / FOLDER).glob(f"{collection}.*.json")):
        pid_text = path.name[len(collection) + 1:-len(".json")]
        if not pid_text.isdigit() or int(pid_text) == os.getpid():
            continue
        try:
            info = json.loads(path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            continue
        if info.get("host") == socket.gethostname() and not pid_alive(int(pid_text)):
            continue  # killed while holding: the kernel let go of its lock
        found.append(info)
    return found


def describe(found: list[dict[str, Any]]) -> str:
    """"autofill run (PID 12, since 2026-...)", joined; "another autofill process" when none is known."""
    if not found:
        return "another autofill process"
    return ", ".join(f"{h.get('command', 'autofill')} (PID {h.get('pid', '?')} on {h.get('host', '?')}, "
                     f"since {h.get('since', '?')})" for h in found)


@dataclass
class _Held:
    fd: int
    modes: list[str] = field(default_factory=list)  # a stack: nested turns of this process


_held: dict[str, _Held] = {}
_guard = threading.Lock()


class CompanyBusy(InputError):
    """The company's turn is held by another process (exit 2, one line)."""


def _try(fd: int, mode: str) -> bool:
    import fcntl

    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if mode == SHARED else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        return True
    except OSError:
        return False


class CompanyTurn:
    """`with CompanyTurn(settings, company, SHARED, "run"): ...`; `wait_s` None: `store.lock_timeout_s`,
    0: refuse at once. Raises CompanyBusy naming the holders when the turn does not come."""

    def __init__(self, settings: Any, company: str, mode: str, label: str, wait_s: float | None = None,
                 collection: str | None = None) -> None:
        self.settings, self.company, self.mode, self.label = settings, company, mode, label
        self.collection = collection or collection_name(company)
        self.vectordb = Path(settings.vectordb_dir)
        self.wait_s = settings.store.lock_timeout_s if wait_s is None else wait_s
        self.path = lock_path(self.vectordb, self.collection)
        self._key = str(self.path)
        self._entered = False

    def __enter__(self) -> "CompanyTurn":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _busy(self) -> CompanyBusy:
        who = describe(holders(self.vectordb, self.collection))
        if self.mode == SHARED:
            return CompanyBusy(f"the evidence store for {self.company!r} is being changed by {who}; "
                               f"run again when it has finished")
        if self.label == "forget":
            return CompanyBusy(f"the evidence store for {self.company!r} is in use by {who}; nothing was "
                               f"deleted: wait for it to finish (or stop it), then run forget again")
        return CompanyBusy(f"the evidence store for {self.company!r} is in use by {who}; "
                           f"try again when it has finished")

    def _wait_for(self, fd: int, mode: str) -> None:
        deadline = time.monotonic() + max(0.0, self.wait_s)
        said = False
        while not _try(fd, mode):
            if time.monotonic() >= deadline:
                raise self._busy()
            if not said:
                log.warning("waiting for %s to finish with the evidence store for %s",
                            describe(holders(self.vectordb, self.collection)), self.company)
                said = True
            time.sleep(_POLL_S)

    def acquire(self) -> None:
        try:
            import fcntl  # noqa: F401
        except ImportError:  # Windows: no turns
            return
        if not self.vectordb.is_dir():
            return  # no store here at all: nothing to take turns on (the command says so itself)
        with _guard:
            held = _held.get(self._key)
            if held is not None:
                if self.mode == EXCLUSIVE and EXCLUSIVE not in held.modes:
                    self._wait_for(held.fd, EXCLUSIVE)  # convert this process's shared turn
                    self._record(EXCLUSIVE)
                held.modes.append(self.mode)
                self._entered = True
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                self._wait_for(fd, self.mode)
                self._record(self.mode)
            except BaseException:
                os.close(fd)
                raise
            _held[self._key] = _Held(fd, [self.mode])
            self._entered = True

    def _record(self, mode: str) -> None:
        from datetime import datetime, timezone

        now_iso = lambda: datetime.now(timezone.utc).replace(microsecond=0).isoformat()  # noqa: E731
        info = {"pid": os.getpid(), "host": socket.gethostname(), "since": now_iso(), "mode": mode,
                "command": _command(self.label)}
        path = _holder_path(self.vectordb, self.collection, os.getpid())
        with contextlib.suppress(OSError):
            path.write_text(json.dumps(info), encoding="utf-8")

    def release(self) -> None:
        if not self._entered:
            return
        self._entered = False
        with _guard:
            held = _held.get(self._key)
            if held is None:
                return
            held.modes.pop()
            if held.modes:
                if EXCLUSIVE not in held.modes and self.mode == EXCLUSIVE:
                    import fcntl

                    fcntl.flock(held.fd, fcntl.LOCK_SH)  # back to this process's shared turn
                    self._record(SHARED)
                return
            del _held[self._key]
            with contextlib.suppress(OSError):
                _holder_path(self.vectordb, self.collection, os.getpid()).unlink(missing_ok=True)
            os.close(held.fd)  # closing releases the flock; the lock file stays for the next process


@contextlib.contextmanager
def reading(settings: Any, company: str, label: str) -> Iterator[None]:
    """A reader's turn (run, ask, re-answer) for the block."""
    with CompanyTurn(settings, company, SHARED, label):
        yield
