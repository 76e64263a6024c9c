"""What a huge request body costs the review server (issue 32: a 300 MB answer with a valid token was
accepted, the server peaked at 2.1 GB): the real `autofill review` in its own process is sent one body
of `--mb` megabytes with a valid token and CSRF header, once with a Content-Length and once chunked
(no length), and the server's peak resident memory (VmHWM), the reply and the time to it are printed.

    python benchmarks/review_app_big_body.py [--mb 300] [--modes length chunked]

Run it from another checkout to compare (its own tests/ and autofill/ are the ones started)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.review_app_helpers import ReviewServer, send_big_body  # noqa: E402
from tests.review_fixtures import make_output_workbook  # noqa: E402


def memory_mb(pid: int) -> dict[str, int]:
    """VmHWM (peak) and VmRSS of a process, in MB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmHWM", "VmRSS")):
            out[line.split(":")[0]] = int(line.split()[1]) // 1024
    return out


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
            print(f"started: {memory_mb(server.proc.pid)}")
            for mode in args.modes:
                status, seconds = send_big_body(server, args.mb << 20, chunked=mode == "chunked")
                print(f"{mode}: {args.mb} MB -> {status} in {seconds:.2f} s; server {memory_mb(server.proc.pid)}")
            sidecar = path.with_name(f".{path.name}.review.sqlite")
            print(f"sidecar: {sidecar.stat().st_size if sidecar.exists() else 0:,} bytes")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
