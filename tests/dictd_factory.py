"""Small dictd dictionaries for tests, written as FreeDict's Debian packages lay them out
(`freedict-deu-eng.index` and a gzip-compressed `freedict-deu-eng.dict.dz`)."""

from __future__ import annotations

import gzip
from pathlib import Path

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def b64(n: int) -> str:
    out = ""
    while True:
        out = _B64[n % 64] + out
        n //= 64
        if n == 0:
            return out


def write_dictd(folder: Path, stem: str, entries: list[tuple[str, str]], shared: dict[str, str] | None = None) -> Path:
    """Write `entries` ((headword, translation line)) as a dictd dictionary; `shared` maps another headword
    to one of the entries' headwords, whose entry it then points at (as inflected forms do)."""
    folder.mkdir(parents=True, exist_ok=True)
    body, index, where = b"", [], {}
    for headword, translations in entries:
        text = f"{headword} /x/ <n>\n{translations}\n   Synonym: {{Beispiel}}\n\n".encode()
        where[headword] = (len(body), len(text))
        index.append(f"{headword}\t{b64(len(body))}\t{b64(len(text))}")
        body += text
    for headword, target in (shared or {}).items():
        offset, length = where[target]
        index.append(f"{headword}\t{b64(offset)}\t{b64(length)}")
    index.append(f"00databaseshort\t{b64(0)}\t{b64(1)}")
    (folder / f"{stem}.dict.dz").write_bytes(gzip.compress(body))
    path = folder / f"{stem}.index"
    path.write_text("\n".join(sorted(index, key=str.lower)) + "\n", encoding="utf-8")
    return path
