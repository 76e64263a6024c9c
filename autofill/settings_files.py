"""Settings files and the settings a file may not name: a TOML file read with one line naming the file
and what is wrong (missing, a folder, binary, UTF-16, not UTF-8, not TOML), and the refusal of a setting
the settings do not have, naming the new key of a renamed one, what to do instead of a removed one, or
the nearest known name, or the one line for a retired one (`RETIRED`). settings.py reads its files and
checks its keys through these."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from autofill.errors import InputError
from autofill.value_types import shown

# Settings that were renamed ("section.old" -> "section.new", same values) or removed (-> what to do
# instead): a file or variable that still uses the old name is refused with the way forward.
RENAMED = {"retrieval.dense_query": "retrieval.query_parts"}
REMOVED = {"retrieval.fusion": "fusion is always weighted reciprocal rank fusion now; tune retrieval.rrf_k "
                               "or retrieval.keyword_weight instead"}


@dataclass(frozen=True)
class Retired:
    """A choice retired because no measurement said why it exists (issue 44): `kept` is the value whose
    behaviour stands (the old default), `always` what is always done now, `why` the measurement."""

    kept: object
    always: str
    why: str


# Settings whose choice was retired: a file, variable or option setting the kept value gets a warning (it
# changes nothing), any other value is refused naming the file and key. The figures: docs/BENCHMARKS.md.
RETIRED = {
    "retrieval.fusion_weights": Retired(
        "fixed", "fixed fusion weights are always used",
        '"adaptive" passed the rule but won on no development set (issue 27)'),
    "retrieval.lexical_query": Retired(
        "clean", "the keyword query always leaves out questionnaire instructions",
        '"full" (the row\'s text as it is) passed the rule but won on no development set (issue 27)'),
    "retrieval.context_order": Retired(
        "ranked", "the answer model always reads the passages best first",
        '"peripheral" was never measured to help'),
    "retrieval.page_chunks": Retired(
        1, "one passage per page among the candidates is always kept",
        "it was measured only as 1 against no limit, within the change that took the filings' hit@6 from "
        "0.74 to 0.94; no other value was ever measured"),
    "retrieval.max_per_page": Retired(
        0, "without a reranker the top passages are one per page, with one the reranker's order stands",
        "the candidates hold one passage per page already; no other value was ever measured"),
    "retrieval.rerank_step": Retired(
        15, "the reranker's sliding windows always move by half a window",
        "no other step was ever measured"),
}


def retired_line(origin: str, kind: str, said: str, name: str, value: object, harmless: bool) -> str:
    """The one line for the retired setting `name` set to `value` (named `said`: the key, the variable or
    the option, as it was set): the warning when `harmless` (it sets the kept value), else InputError
    naming `origin` (the file), the key and what to do."""
    entry = RETIRED[name]
    todo = {"environment": f"unset {said}", "flag": f"leave {said} out"}.get(kind, f"remove it from {origin}")
    if harmless:
        return f"{said} is retired ({entry.always}); {todo}"
    raise InputError(f"{origin}: {said} = {shown(value)} is retired: {entry.why}; {entry.always}: {todo}")


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
