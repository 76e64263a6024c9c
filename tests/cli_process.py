"""`python -m autofill ARGS` in a fresh process, without paying the imports each time.

Most CLI tests are about what a command does in its own process (exit code, stdout, stderr, files, locks,
threads), not about the interpreter's start. A cold `python -m autofill` spends about 4 CPU-s importing
openai, chromadb, pymupdf and the package before it does anything, and the suite starts a few hundred.
`run` keeps that process boundary and drops the import cost: one helper process per test process (the
"zygote", this module run as `python -m tests.cli_process`) imports the package and its heavy libraries
once, starts no thread, and forks a child per command. The child is a new process with its own pid,
environment, working directory, stdin/stdout/stderr and exit code; it runs `python -m autofill` as the
interpreter would (runpy, `__main__`), then the interpreter's own shutdown steps (joining threads, atexit).

What a fork cannot show stays cold: tests about the start itself (imports, `--help`'s modules, a missing
extra) call `subprocess` as before, and AUTOFILL_TEST_COLD=1 makes every call here cold too (as a check
that forking hides nothing).

Protocol: the test process sends one message per command over a Unix socket (argv, env, cwd and a fresh
folder, as JSON) with the child's stdin, stdout and stderr as file descriptors (SCM_RIGHTS: files for `run`,
pipes for `popen`); the zygote forks, writes the child's pid to `folder/pid`, and once the child has ended
writes its exit status to `folder/rc` before it reaps it (the test side signals it through a pidfd opened
while `rc` is absent: never another process later given the same pid). The zygote is single-threaded and
polls its socket and its children, so commands may run concurrently from threads of the test process."""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLD = "AUTOFILL_TEST_COLD"

# Imported once by the zygote: the heavy third-party libraries and the modules a command loads. None of
# them starts a thread or loads a model on import (checked by `_threads` in the zygote).
PRELOAD = ("openai", "chromadb", "numpy", "openpyxl", "bm25s", "jinja2", "httpx", "autofill.cli", "autofill.answer.pipeline", "autofill.ingest.pipeline",
           "autofill.store.chroma_store", "autofill.review_app.commands", "autofill.portfolio.commands",
           "autofill.evaluate.runner")


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------- the child

def _child(request: dict, fds: list[int]) -> None:
    """In the forked child: become `python -m autofill ARGS` and exit with its status."""
    code = 1
    try:
        # Signals: the child keeps the zygote's dispositions, those the interpreter set when the zygote
        # started as a cold command starts (SIGINT raises KeyboardInterrupt; SIGPIPE and SIGXFSZ are
        # ignored, so a write to a closed pipe or socket is an OSError), and the zygote changes none.
        # SIGPIPE set back to its default here once let a review server be killed when a browser tab
        # that was closed left a reply with nowhere to go (test_cli_process checks the kernel's masks).
        for fd, target in zip(fds, (0, 1, 2)):
            os.dup2(fd, target)
        for fd in fds:
            os.close(fd)
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", errors="backslashreplace", closefd=False)
        os.environ.clear()
        os.environ.update(request["env"])
        tempfile.tempdir = None  # read again from this command's TMPDIR, as a new interpreter would
        os.chdir(request["cwd"])
        import runpy
        sys.argv = [str(ROOT / "autofill" / "__main__.py"), *request["argv"]]
        try:
            runpy.run_module("autofill", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except KeyboardInterrupt:
            import traceback
            traceback.print_exc()
            code = 128 + signal.SIGINT
        except BaseException:  # what the interpreter prints for an uncaught exception
            import traceback
            traceback.print_exc()
            code = 1
        # The interpreter's own shutdown: wait for non-daemon threads, then the atexit functions.
        threading._shutdown()  # type: ignore[attr-defined]
        import atexit
        atexit._run_exitfuncs()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


# ---------------------------------------------------------------------------------------------- the zygote

def _signal_all(children, sig: int) -> None:
    for pid in list(children):
        with contextlib.suppress(ProcessLookupError):  # reaped in the meantime
            os.kill(pid, sig)


def zygote(sock_fd: int) -> None:
    for name in PRELOAD:
        __import__(name)
    sock = socket.socket(fileno=sock_fd)
    sys.stdout.write(json.dumps({"ready": os.getpid(), "threads": len(os.listdir("/proc/self/task"))}) + "\n")
    sys.stdout.flush()
    children: dict[int, Path] = {}
    open_ = True
    closed_at = 0.0
    while open_ or children:
        if open_:
            readable, _, _ = select.select([sock], [], [], 0.02)
            if readable:
                data, fds, _flags, _addr = socket.recv_fds(sock, 1 << 20, 3)
                if not data:  # the test process is gone or done: what it left running goes too,
                    open_ = False  # as its own children would with their process group
                    closed_at = time.monotonic()
                    _signal_all(children, signal.SIGTERM)
                else:
                    request = json.loads(data)
                    pid = os.fork()
                    if pid == 0:
                        sock.close()
                        _child(request, fds)
                    for fd in fds:
                        os.close(fd)
                    children[pid] = Path(request["folder"])
                    _write_atomic(Path(request["folder"]) / "pid", str(pid))
        else:
            time.sleep(0.02)
            if children and time.monotonic() - closed_at > 10:
                _signal_all(children, signal.SIGKILL)
                closed_at = time.monotonic()
        while children:
            try:  # an ended child, left unreaped (WNOWAIT) until its exit status is written
                ended = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                children.clear()
                break
            if ended is None:
                break
            pid = ended.si_pid
            folder = children.pop(pid, None)
            if folder is not None:
                code = ended.si_status if ended.si_code == os.CLD_EXITED else -ended.si_status
                _write_atomic(folder / "rc", str(code))
            os.waitpid(pid, 0)  # only now may the kernel give its pid to another process


# ---------------------------------------------------------------------------------------------- the test side

class _Zygote:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.root: Path | None = None  # made when the zygote starts
        self.count = 0

    def _start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        if self.root is None:
            self.root = Path(tempfile.mkdtemp(prefix="autofill-cli-"))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               "ANONYMIZED_TELEMETRY": "False"}
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.cli_process", str(theirs.fileno())],
                                     cwd=str(ROOT), env=env, stdout=subprocess.PIPE, text=True,
                                     pass_fds=(theirs.fileno(),))
        theirs.close()
        self.sock = ours
        if not self.proc.stdout.readline():
            raise RuntimeError("the CLI zygote did not start")
        import atexit
        atexit.register(self.stop)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.sock.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)

    def start(self) -> None:
        with self.lock:
            self._start()

    def submit(self, argv: list[str], env: dict[str, str], cwd: str, fds: list[int]) -> Path:
        """Fork `python -m autofill ARGV` with stdin, stdout, stderr = `fds`; the request's folder."""
        with self.lock:
            self._start()
            self.count += 1
            folder = self.root / str(self.count)
            folder.mkdir()
            message = json.dumps({"argv": argv, "env": env, "cwd": cwd, "folder": str(folder)}).encode()
            socket.send_fds(self.sock, [message], fds)
        return folder


_ZYGOTE = _Zygote()


def _cold_wanted(env: dict[str, str]) -> bool:
    return os.environ.get(COLD) == "1" or env.get(COLD) == "1"


def _argv(args) -> list[str]:
    return [sys.executable, "-m", "autofill", *args]


class Forked:
    """A forked `python -m autofill` with the parts of subprocess.Popen the tests use."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: str, stdin=None, stdout=None,
                 stderr=None, text: bool = True) -> None:
        self.args = _argv(args)
        self.returncode: int | None = None
        ends, keep = [], []
        for want, reading in ((stdin, False), (stdout, True), (stderr, True)):
            if want == subprocess.PIPE:
                r, w = os.pipe()
                ends.append(w if reading else r)
                keep.append(r if reading else w)
            elif want is None or want == subprocess.DEVNULL:
                ends.append(os.open(os.devnull, os.O_RDWR))
                keep.append(None)
            else:
                ends.append(os.dup(want if isinstance(want, int) else want.fileno()))
                keep.append(None)
        try:
            self.folder = _ZYGOTE.submit(args, env, cwd, ends)
        finally:
            for fd in ends:
                os.close(fd)
        mode = dict(encoding="utf-8", errors="replace") if text else {}
        self.stdin = open(keep[0], "w" if text else "wb", **mode) if keep[0] is not None else None
        self.stdout = open(keep[1], "r" if text else "rb", **mode) if keep[1] is not None else None
        self.stderr = open(keep[2], "r" if text else "rb", **mode) if keep[2] is not None else None
        pid_file = self.folder / "pid"
        while not pid_file.exists():
            time.sleep(0.002)
        self.pid = int(pid_file.read_text())
        # A handle on this very process, never on a later one given the same pid: the zygote writes `rc`
        # before it reaps, so a pidfd opened while `rc` is absent was opened on our unreaped child.
        self._pidfd: int | None = None
        with contextlib.suppress(AttributeError, OSError):  # no pidfd (not Linux 5.3+): os.kill below
            pidfd = os.pidfd_open(self.pid)
            if (self.folder / "rc").exists():
                os.close(pidfd)
            else:
                self._pidfd = pidfd

    def poll(self) -> int | None:
        if self.returncode is None and (self.folder / "rc").exists():
            self.returncode = int((self.folder / "rc").read_text())
        return self.returncode

    def __del__(self) -> None:  # not before: another thread may be signalling through it
        pidfd, self._pidfd = getattr(self, "_pidfd", None), None
        if pidfd is not None:
            os.close(pidfd)

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.002
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self.args, timeout)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        """Signal this command's process while it runs; once it has ended, nothing (no other process that
        was given its pid)."""
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # it ended after the poll
                if self._pidfd is not None:
                    signal.pidfd_send_signal(self._pidfd, sig)
                else:
                    os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def communicate(self, input=None, timeout: float | None = None):
        """As Popen.communicate: both pipes drained while the child runs (a child that fills one would
        otherwise block on it)."""
        if self.stdin is not None:
            if input:
                self.stdin.write(input)
            self.stdin.close()
        read: dict[str, object] = {}
        readers = [threading.Thread(target=lambda n=name, s=stream: read.__setitem__(n, s.read()), daemon=True)
                   for name, stream in (("out", self.stdout), ("err", self.stderr)) if stream is not None]
        for reader in readers:
            reader.start()
        self.wait(timeout)
        for reader in readers:
            reader.join()
        return read.get("out"), read.get("err")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                stream.close()
        self.wait()


def popen(args, *, env: dict[str, str] | None = None, cwd=None, stdin=None, stdout=None, stderr=None,
          text: bool = True):
    """subprocess.Popen([python, -m, autofill, *args], ...), forked from the zygote (cold with
    AUTOFILL_TEST_COLD=1): .pid, .stdout/.stderr (PIPE), .poll(), .wait(), .send_signal(), .kill()."""
    args = [str(a) for a in args]
    env = dict(os.environ if env is None else env)
    cwd = str(cwd or os.getcwd())
    if _cold_wanted(env):
        return subprocess.Popen(_argv(args), env=env, cwd=cwd, stdin=stdin, stdout=stdout, stderr=stderr, text=text)
    return Forked(args, env, cwd, stdin, stdout, stderr, text)


def run(args, *, env: dict[str, str] | None = None, cwd=None, timeout: float = 300,
        input: str | None = None) -> subprocess.CompletedProcess:
    """subprocess.run([python, -m, autofill, *args], capture_output=True, text=True, ...), forked from the
    zygote (or cold with AUTOFILL_TEST_COLD=1). Raises subprocess.TimeoutExpired as subprocess.run does."""
    args = [str(a) for a in args]
    env = dict(os.environ if env is None else env)
    cwd = str(cwd or os.getcwd())
    if _cold_wanted(env):
        return subprocess.run(_argv(args), env=env, cwd=cwd, input=input, capture_output=True, text=True,
                              timeout=timeout)
    _ZYGOTE.start()
    scratch = Path(tempfile.mkdtemp(prefix="io-", dir=_ZYGOTE.root))
    (scratch / "stdin").write_text(input or "")
    with open(scratch / "stdin", "rb") as i, open(scratch / "stdout", "wb") as o, open(scratch / "stderr", "wb") as e:
        proc = Forked(args, env, cwd, i, o, e)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise
    out = (scratch / "stdout").read_text(errors="replace")
    err = (scratch / "stderr").read_text(errors="replace")
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.rmtree(proc.folder, ignore_errors=True)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


if __name__ == "__main__":
    zygote(int(sys.argv[1]))
