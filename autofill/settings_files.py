"""Settings files and the settings a file may not name: a TOML file read with one line naming the file
and what is wrong (missing, a folder, binary, UTF-16, not UTF-8, not TOML), and the refusal of a setting
the settings do not have, naming the new key of a renamed one, what to do instead of a removed one, or
the nearest known name. settings.py reads its files and checks its keys through these."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from autofill.errors import InputError

# Settings that were renamed ("section.old" -> "section.new", same values) or removed (-> what to do
# instead): a file or variable that still uses the old name is refused with the way forward.
RENAMED = {"retrieval.dense_query": "retrieval.query_parts"}
REMOVED = {"retrieval.fusion": "fusion is always weighted reciprocal rank fusion now; tune retrieval.rrf_k, "
                               "retrieval.keyword_weight or retrieval.max_per_page instead"}


def unknown_setting(origin: str, name: str, known: list[str]) -> InputError:
    """The refusal for a setting `name` ("section.key") the settings do not have."""
    import difflib

    if name in RENAMED:
        new = RENAMED[name]
        section, _, key = new.partition(".")
        how = (f"set AUTOFILL_{section.upper()}__{key.upper()} instead" if origin == "environment"
               else f"write {key} under [{section}] instead")
        return InputError(f"{origin}: setting {name} was renamed {new} (same values): {how}")
    if name in REMOVED:
        return InputError(f"{origin}: setting {name} was removed: {REMOVED[name]}")
    close = difflib.get_close_matches(name, known, n=1)
    return InputError(f"{origin}: unknown setting {name}" + (f" (did you mean {close[0]}?)" if close else ""))


def read_toml(path: Path) -> dict[str, Any]:
    """A settings file as a nested mapping; InputError in one line naming the file and what is wrong
    (missing, unreadable, a folder, binary, not UTF-8, not TOML)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"settings file not found: {Path(path).name} (looked in {Path(path).resolve().parent})") from None
    except PermissionError:
        raise InputError(f"cannot read settings file {Path(path).resolve()}: permission denied") from None
    except IsADirectoryError:
        raise InputError(f"settings file {path} is a folder, not a TOML file") from None
    except OSError as exc:
        raise InputError(f"cannot read settings file {path}: {exc.strerror or exc}") from None
    return parse_toml(data, str(path))


def parse_toml(data: bytes, name: str) -> dict[str, Any]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a UTF-8 byte order mark (Notepad): the text is fine
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(f"settings file {name} is UTF-16 text; save it as UTF-8 (TOML files are UTF-8)")
    if b"\x00" in data:
        raise InputError(f"settings file {name} is a binary file, not TOML text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"settings file {name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at position "
                         f"{exc.start}); save it as UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"settings file {name} is not valid TOML: {' '.join(str(exc).split())}") from None
