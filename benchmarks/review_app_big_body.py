"""What a huge request body costs the review server (issue 32: a 300 MB answer with a valid token was
accepted, the server peaked at 2.1 GB): the real `autofill review` in its own process is sent one body
of `--mb` megabytes with a valid token and CSRF header, once with a Content-Length and once chunked
(no length), and the server's peak resident memory (VmHWM), the reply and the time to it are printed.

    python benchmarks/review_app_big_body.py [--mb 300] [--modes length chunked]

Run it from another checkout to compare (its own tests/ and autofill/ are the ones started)."""

from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autofill.review_app.security import csrf_token  # noqa: E402
from tests.review_app_helpers import ReviewServer  # noqa: E402
from tests.review_fixtures import make_output_workbook  # noqa: E402


def memory_mb(pid: int) -> dict[str, int]:
    """VmHWM (peak) and VmRSS of a process, in MB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmHWM", "VmRSS")):
            out[line.split(":")[0]] = int(line.split()[1]) // 1024
    return out


def send(host: str, port: int, token: str, size: int, chunked: bool) -> tuple[str, float]:
    """POST one decision whose answer is `size` bytes; the reply's status line and the seconds to it."""
    prefix = json.dumps({"key": "Questionnaire!6", "base": "", "reviewer": "Ana", "action": "Edit"})[:-1]
    prefix, suffix = (prefix + ', "values": {"answer": "').encode(), b'"}}'
    head = (f"POST /api/decide HTTP/1.1\r\nHost: {host}:{port}\r\nX-Review-Token: {token}\r\n"
            f"X-CSRF-Token: {csrf_token(token)}\r\nContent-Type: application/json\r\n")
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {len(prefix) + size + len(suffix)}\r\n\r\n"

    def framed(data: bytes) -> bytes:
        return b"%x\r\n%s\r\n" % (len(data), data) if chunked else data

    start, reply = time.perf_counter(), b""
    with socket.create_connection((host, port), timeout=300) as sock:
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
            pass
    return reply.split(b"\r\n", 1)[0].decode(errors="replace"), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=300)
    parser.add_argument("--modes", nargs="+", default=["length", "chunked"], choices=["length", "chunked"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "ws").mkdir()
        path = make_output_workbook(root / "filled.xlsx")
        server = ReviewServer(root / "ws", path)
        try:
            host, port = server.base.split("//", 1)[1].rsplit(":", 1)
            token = server.url.split("token=", 1)[1]
            print(f"started: {memory_mb(server.proc.pid)}")
            for mode in args.modes:
                status, seconds = send(host, int(port), token, args.mb << 20, chunked=mode == "chunked")
                print(f"{mode}: {args.mb} MB -> {status} in {seconds:.2f} s; server {memory_mb(server.proc.pid)}")
            sidecar = path.with_name(f".{path.name}.review.sqlite")
            print(f"sidecar: {sidecar.stat().st_size if sidecar.exists() else 0:,} bytes")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
