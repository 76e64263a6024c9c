"""A minimal OLE compound-file (MS-CFB, version 3) writer for tests: the container Office uses for
legacy .xls files and for password-protected .xlsx files (streams `EncryptionInfo` and
`EncryptedPackage`). Like Excel, it can write the directory after the stream data, megabytes into the
file, which is where a scan of the first bytes for stream names misses it.

    build_ole(path, {"EncryptionInfo": b"...", "EncryptedPackage": big_bytes})       -> encrypted workbook
    build_ole(path, {"Workbook": b"..."})                                              -> a legacy .xls

Every stream is padded to at least 4,096 bytes so all live in regular sectors (no mini stream)."""

from __future__ import annotations

import struct
from pathlib import Path

SECTOR = 512
ENDOFCHAIN, FREESECT, FATSECT, NOSTREAM = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD, 0xFFFFFFFF
MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def _entry(name: str, kind: int, right: int = NOSTREAM, child: int = NOSTREAM, start: int = ENDOFCHAIN,
           size: int = 0) -> bytes:
    if not name:
        return b"\x00" * 64 + struct.pack("<HBBIII16sIQQIQ", 0, 0, 0, NOSTREAM, NOSTREAM, NOSTREAM,
                                          b"\x00" * 16, 0, 0, 0, 0, 0)
    raw = (name + "\x00").encode("utf-16-le")
    return raw.ljust(64, b"\x00") + struct.pack("<HBBIII16sIQQIQ", len(raw), kind, 1, NOSTREAM, right, child,
                                                 b"\x00" * 16, 0, 0, 0, start, size)


def build_ole(path: Path, streams: dict[str, bytes]) -> Path:
    # Siblings as a right-leaning chain in CFB's order (shorter names first, then case-insensitive).
    names = sorted(streams, key=lambda n: (len(n), n.upper()))
    data = {n: streams[n].ljust(4096, b"\x00") for n in names}
    chains, sectors = {}, 0
    for n in names:
        count = -(-len(data[n]) // SECTOR)
        chains[n] = (sectors, count)
        sectors += count
    entries = [_entry("Root Entry", 5, child=1)]
    for i, n in enumerate(names, start=1):
        entries.append(_entry(n, 2, right=i + 1 if i < len(names) else NOSTREAM, start=chains[n][0],
                              size=len(streams[n]) if len(streams[n]) >= 4096 else 4096))
    while len(entries) % (SECTOR // 128):
        entries.append(_entry("", 0))
    dir_start, dir_count = sectors, len(entries) * 128 // SECTOR
    sectors += dir_count
    fat_count = 1
    while (sectors + fat_count) > fat_count * (SECTOR // 4):
        fat_count += 1
    if fat_count > 109:
        raise ValueError("test container too large for a header-only DIFAT")
    fat = [FREESECT] * (fat_count * SECTOR // 4)
    for start, count in [*chains.values(), (dir_start, dir_count)]:
        for k in range(start, start + count):
            fat[k] = k + 1 if k < start + count - 1 else ENDOFCHAIN
    fat_start = sectors
    for k in range(fat_start, fat_start + fat_count):
        fat[k] = FATSECT
    difat = [fat_start + i for i in range(fat_count)] + [FREESECT] * (109 - fat_count)
    header = struct.pack("<8s16sHHHHH6sIIIIIIIII", MAGIC, b"\x00" * 16, 0x3E, 3, 0xFFFE, 9, 6, b"\x00" * 6,
                         0, fat_count, dir_start, 0, 4096, ENDOFCHAIN, 0, ENDOFCHAIN, 0)
    header += struct.pack("<109I", *difat)
    body = b"".join(data[n].ljust(chains[n][1] * SECTOR, b"\x00") for n in names)
    body += b"".join(entries) + struct.pack(f"<{len(fat)}I", *fat)
    Path(path).write_bytes(header + body)
    return Path(path)
