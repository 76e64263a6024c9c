"""Shared by the browser tests and the benchmark of `autofill review`: a workspace whose sample report
was ingested with the real local embedder and filled offline by a real run, the review server started
as users start it (the CLI in its own process, `--no-browser --json --port 0`), and headless Chromium
(Debian's, driven by Playwright for Python; no browser download)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path
from tests import cli_process

CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
REPO = Path(__file__).resolve().parent.parent


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def fill_offline(root: Path, facts) -> Path:
    """Ingest the sample report with the local embedder and fill a questionnaire of `facts` without a
    model (evidence-only drafts); the filled workbook's path."""
    from autofill.answer.pipeline import run_questionnaire
    from autofill.ingest.pipeline import ingest_paths
    from autofill.settings import Settings
    from tests.answer_helpers import COMPANY, SAMPLE, make_questionnaire
    from tests.pdf_factory import make_sample_company_pdf

    settings = Settings(workspace=root)
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    report = ingest_paths(settings, COMPANY, [make_sample_company_pdf(docs / SAMPLE)])
    assert report.count("failed") == 0, report.files
    questionnaire = make_questionnaire(root / "questionnaire.xlsx", facts)
    return run_questionnaire(settings, COMPANY, questionnaire).output


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "COHERE_", "AUTOFILL_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update({"HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False", **extra})
    return env


class ReviewServer:
    """`autofill review TARGET` in a subprocess; `.url` is the URL it printed (with the token)."""

    def __init__(self, workspace: Path, target: Path, env: dict[str, str] | None = None, args: tuple = (),
                 global_args: tuple = ()):
        cmd = ["--workspace", str(workspace), *global_args, "review", str(target), "--no-browser", "--json", "--port",
               "0", *args]
        self.proc = cli_process.popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env or server_env())
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=30)
            raise RuntimeError(f"autofill review did not start: {self.proc.stderr.read()[-2000:]}")
        first = json.loads(line)
        self.url, self.workbook = first["url"], Path(first["workbook"])
        self.base = self.url.split("/?", 1)[0]

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self.stderr = self.proc.stderr.read()
            self.proc.stdout.close()
            self.proc.stderr.close()

    def __enter__(self) -> "ReviewServer":
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.stop()


def send_big_body(server: "ReviewServer", size: int, chunked: bool) -> tuple[str, float]:
    """POST one decision whose answer is `size` bytes to a running server, with its token and CSRF header,
    framed with a Content-Length or chunked (no length); the reply's status line and the seconds to it.
    A server that answers before it has it all and closes is fine: what it said is read."""
    import socket
    import time

    from autofill.review_app.security import csrf_token

    host, port = server.base.split("//", 1)[1].rsplit(":", 1)
    token = server.url.split("token=", 1)[1]
    prefix = json.dumps({"key": "Questionnaire!6", "base": "", "reviewer": "Ana", "action": "Edit"})[:-1]
    prefix, suffix = (prefix + ', "values": {"answer": "').encode(), b'"}}'
    head = (f"POST /api/decide HTTP/1.1\r\nHost: {host}:{port}\r\nX-Review-Token: {token}\r\n"
            f"X-CSRF-Token: {csrf_token(token)}\r\nContent-Type: application/json\r\n")
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {len(prefix) + size + len(suffix)}\r\n\r\n"

    def framed(data: bytes) -> bytes:
        return b"%x\r\n%s\r\n" % (len(data), data) if chunked else data

    start, reply = time.perf_counter(), b""
    with socket.create_connection((host, int(port)), timeout=300) as sock:
        try:
            sock.sendall(head.encode() + framed(prefix))
            block, sent = b"x" * (1 << 20), 0
            while sent < size:
                sock.sendall(framed(block))
                sent += len(block)
            sock.sendall(framed(suffix) + (b"0\r\n\r\n" if chunked else b""))
        except OSError:
            pass  # the server answered and closed before it was all sent
        try:
            while b"\r\n\r\n" not in reply:
                part = sock.recv(65536)
                if not part:
                    break
                reply += part
        except OSError:
            pass  # reset after the status line: the status line is what the caller reads
    return reply.split(b"\r\n", 1)[0].decode(errors="replace"), time.perf_counter() - start
