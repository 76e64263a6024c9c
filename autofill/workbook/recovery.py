"""A workbook that cannot be opened is never the end of a reviewer's work.

An output can be damaged by a crash of another program, a copy cut short, a sync conflict or (before
safety.xml_safe) text an .xlsx cannot hold. `run` and `review` look at the output they are about to
continue first (`damage`: the zip and each of its XML parts, without loading the workbook); a damaged
one is moved aside, never overwritten (`<name>.damaged.<UTC stamp>.xlsx` beside it), and the newest copy
in history/ that opens (workbook/history.py) is put in its place, its Review log and every reviewer
edit it holds with it. What was done is said in one line (`Recovery.message`); with no copy that opens,
`run` starts from the questionnaire and `review` stops with that line (exit 2)."""

from __future__ import annotations

import logging
import os
import re
import time
import xml.parsers.expat
import zipfile
from dataclasses import dataclass
from pathlib import Path

from autofill.errors import InputError
from autofill.fileio import atomic_write_bytes
from autofill.workbook.history import HISTORY_DIR, versions
from autofill.workbook.safety import check_workbook_file

log = logging.getLogger(__name__)

DAMAGED_TAG = "damaged"
_XML_PARTS = (".xml", ".rels", ".vml")
_BLOCK = 1 << 20


def damage(path: Path) -> str:
    """"" when the workbook at `path` opens as far as its file goes: an intact zip (checked by CRC)
    holding xl/workbook.xml, every XML part well-formed; else what is wrong, in a few words."""
    path = Path(path)
    try:
        if check_workbook_file(path) != "xlsx":
            return ""
    except InputError as exc:
        return str(exc).removeprefix(f"{path.name} ").removeprefix("is ")
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if not info.filename.lower().endswith(_XML_PARTS):
                    continue
                parser = xml.parsers.expat.ParserCreate()
                with zf.open(info) as fh:
                    while block := fh.read(_BLOCK):
                        parser.Parse(block, False)
                    parser.Parse(b"", True)
    except xml.parsers.expat.ExpatError as exc:
        return f"its part {info.filename} is not well-formed XML ({exc})"
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        return f"it cannot be read as a zip ({exc})"
    return ""


def last_good(output: Path) -> Path | None:
    """The newest copy of `output` in history/ that opens (`damage` finds nothing), or None."""
    for candidate in reversed(versions(output)):
        if not damage(candidate):
            return candidate
    return None


def set_aside(output: Path) -> Path:
    """Move `output` to `<stem>.damaged.<UTC stamp><suffix>` in its folder (a rename: every byte kept,
    never overwritten); the new path."""
    output = Path(output)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = output.with_name(f"{output.stem}.{DAMAGED_TAG}.{stamp}{output.suffix}")
    n = 1
    while target.exists():
        n += 1
        target = output.with_name(f"{output.stem}.{DAMAGED_TAG}.{stamp}-{n}{output.suffix}")
    try:
        os.replace(output, target)
    except OSError as exc:
        raise InputError(f"{output} is damaged and cannot be moved aside ({exc.strerror or exc}); move it away "
                         "and run again") from None
    return target


@dataclass(frozen=True)
class Recovery:
    """What `recover` did: the damaged file's new name, the history copy put in its place (None: none
    opens), and what was wrong."""

    output: Path
    damaged: Path
    restored: Path | None
    why: str

    def message(self, without: str = "starting again from the questionnaire") -> str:
        """One line: which file is damaged and why, where it went, and what goes on from here."""
        head = f"{self.output.name} is damaged ({self.why})"
        if self.damaged != self.output:
            head += f"; kept as {self.damaged.name}"
        if self.restored is None:
            return f"{head}; no copy in {HISTORY_DIR}/ opens: {without}"
        return (f"{head}; continuing from its last good version {HISTORY_DIR}/{self.restored.name} (its reviews "
                "and Review log included)")


def recover(output: Path, why: str = "", without_copy: bool = True) -> Recovery | None:
    """When `output` is damaged (`why`: how opening it failed, when the caller knows; else `damage`
    looks): move it aside and put the newest history copy that opens in its place. None when `output`
    is missing or opens. `without_copy=False`: with no copy that opens, leave it where it is (the
    Recovery's `damaged` is then `output` itself). The caller holds the output's lock (outputlock) and
    says `message()`."""
    output = Path(output)
    if not output.is_file():
        return None
    why = _short(why or damage(output))
    if not why:
        return None
    good = last_good(output)
    if good is None and not without_copy:
        return Recovery(output, output, None, why)
    damaged = set_aside(output)
    if good is not None:
        atomic_write_bytes(output, good.read_bytes())
    return Recovery(output, damaged, good, why)


def _short(why: str) -> str:
    """An opening error without the file's name it starts with (the message names the file once)."""
    return re.sub(r"^\S+\.xls[xm] is (corrupt or not a workbook openpyxl can read: )?", "", why.strip())
