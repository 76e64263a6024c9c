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

Protocol: the test process writes one JSON line per command to the zygote's stdin (argv, env, cwd and a
fresh folder); the zygote forks, writes the child's pid to `folder/pid`, and when it reaps the child writes
its exit status to `folder/rc`. The zygote is single-threaded and polls its stdin and its children, so
commands may run concurrently from threads of the test process."""

from __future__ import annotations

import json
import os
import select
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

def _child(request: dict) -> None:
    """In the forked child: become `python -m autofill ARGS` and exit with its status."""
    folder = Path(request["folder"])
    code = 1
    try:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL if sig != signal.SIGINT else signal.default_int_handler)
        stdin = os.open(request["stdin"] or os.devnull, os.O_RDONLY)
        out = os.open(folder / "stdout", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(folder / "stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        for fd, target in ((stdin, 0), (out, 1), (err, 2)):
            os.dup2(fd, target)
            os.close(fd)
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", errors="backslashreplace", closefd=False)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        import runpy
        main = str(ROOT / "autofill" / "__main__.py")
        sys.argv = [main, *request["argv"]]
        try:
            runpy.run_module("autofill", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if exc.code is not None and not isinstance(exc.code, int):
                print(exc.code, file=sys.stderr)
        except KeyboardInterrupt:
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

def zygote() -> None:
    for name in PRELOAD:
        __import__(name)
    ready = sys.stdout
    ready.write(json.dumps({"ready": os.getpid(), "threads": len(os.listdir("/proc/self/task"))}) + "\n")
    ready.flush()
    children: dict[int, Path] = {}
    buffered = b""
    stdin = sys.stdin.fileno()
    open_ = True
    while open_ or children:
        if open_:
            readable, _, _ = select.select([stdin], [], [], 0.02)
            if readable:
                chunk = os.read(stdin, 65536)
                if not chunk:
                    open_ = False
                buffered += chunk
                while b"\n" in buffered:
                    line, buffered = buffered.split(b"\n", 1)
                    request = json.loads(line)
                    pid = os.fork()
                    if pid == 0:
                        _child(request)
                    children[pid] = Path(request["folder"])
                    _write_atomic(Path(request["folder"]) / "pid", str(pid))
        else:
            time.sleep(0.02)
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                children.clear()
                break
            if pid == 0:
                break
            folder = children.pop(pid, None)
            if folder is not None:
                _write_atomic(folder / "rc", str(os.waitstatus_to_exitcode(status)))


# ---------------------------------------------------------------------------------------------- the test side

class _Zygote:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen | None = None
        self.root = Path(tempfile.mkdtemp(prefix="autofill-cli-"))
        self.count = 0

    def start(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                   "ANONYMIZED_TELEMETRY": "False"}
            self.proc = subprocess.Popen([sys.executable, "-m", "tests.cli_process"], cwd=str(ROOT), env=env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            ready = self.proc.stdout.readline()
            if not ready:
                raise RuntimeError("the CLI zygote did not start")
            import atexit
            atexit.register(self.stop)
        return self.proc

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.root, ignore_errors=True)

    def submit(self, argv: list[str], env: dict[str, str], cwd: str, stdin: str | None) -> Path:
        with self.lock:
            proc = self.start()
            self.count += 1
            folder = self.root / str(self.count)
            folder.mkdir()
            stdin_path = None
            if stdin is not None:
                stdin_path = str(folder / "stdin")
                Path(stdin_path).write_text(stdin)
            proc.stdin.write(json.dumps({"argv": argv, "env": env, "cwd": cwd, "folder": str(folder),
                                         "stdin": stdin_path}) + "\n")
            proc.stdin.flush()
        return folder


_ZYGOTE = _Zygote()


def _cold(args: list[str], env, cwd, timeout, input) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autofill", *args], env=env, cwd=cwd, input=input,
                          capture_output=True, text=True, timeout=timeout)


def run(args, *, env: dict[str, str] | None = None, cwd=None, timeout: float = 300,
        input: str | None = None) -> subprocess.CompletedProcess:
    """subprocess.run([python, -m, autofill, *args], capture_output=True, text=True, ...), forked from the
    zygote (or cold with AUTOFILL_TEST_COLD=1). Raises subprocess.TimeoutExpired as subprocess.run does."""
    args = [str(a) for a in args]
    env = dict(os.environ if env is None else env)
    cwd = str(cwd or os.getcwd())
    if os.environ.get(COLD) == "1" or env.get(COLD) == "1":
        return _cold(args, env, cwd, timeout, input)
    folder = _ZYGOTE.submit(args, env, cwd, input)
    deadline = time.monotonic() + timeout
    rc_file = folder / "rc"
    delay = 0.005
    while not rc_file.exists():
        if time.monotonic() > deadline:
            pid_file = folder / "pid"
            if pid_file.exists():
                try:
                    os.kill(int(pid_file.read_text()), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            raise subprocess.TimeoutExpired([sys.executable, "-m", "autofill", *args], timeout)
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    code = int(rc_file.read_text())
    out = (folder / "stdout").read_text(errors="replace")
    err = (folder / "stderr").read_text(errors="replace")
    shutil.rmtree(folder, ignore_errors=True)
    return subprocess.CompletedProcess([sys.executable, "-m", "autofill", *args], code, out, err)


if __name__ == "__main__":
    zygote()
