"""Searching every file a command left for a string, the way someone recovering data would: byte for
byte (SQLite files included: free pages too), with zips (workbooks, review packs) opened, nested."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Iterator


def contents(path: Path, data: bytes | None = None, depth: int = 0) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of a file and, for a zip, of every member ("file!member"), nested up to 3 deep."""
    data = path.read_bytes() if data is None else data
    yield str(path), data
    if depth < 3 and data[:4] == b"PK\x03\x04":
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for name in zf.namelist():
                yield from contents(Path(f"{path}!{name}"), zf.read(name), depth + 1)


def every_file(folder: Path) -> Iterator[tuple[str, bytes]]:
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        yield from contents(path)
