"""Content hashes: a file's hash decides whether a document is re-ingested, which checkpoint a run
resumes from, and whether a PDF still matches what was ingested."""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_sha256(path: Path | str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
