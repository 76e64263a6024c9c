"""Compare two folders of filled workbooks cell for cell (every sheet, the hidden record sheet included),
ignoring only what a run stamps with its time: the Run info sheet's started/finished/seconds rows and
the paths of temporary workspaces. Prints one line per workbook and each differing cell.

    python benchmarks/compare_workbooks.py BEFORE_DIR AFTER_DIR [--also-text]

`--also-text` compares the saved stdout (`*.out`) of benchmarks/plan_reference.py too, after blanking
temporary paths and timings. Exit 1 when anything differs."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import openpyxl

# Run info rows a run fills with its own time.
VOLATILE_INFO = {"started", "finished", "written_at", "seconds", "run seconds", "duration", "wall seconds"}
_TMP = re.compile(r"/tmp/tmp[\w-]+")
_PORT = re.compile(r"127\.0\.0\.1:\d+")  # the loopback servers' ports
_NUMBER_KEYS = re.compile(r'"(seconds|report|output|history|table|table_json|chart|portfolio)": [^,}]+')


def _norm(value):
    if isinstance(value, str):
        return _PORT.sub("127.0.0.1:PORT", _TMP.sub("/tmp/TMP", value))
    return value


def cells(path: Path) -> dict[tuple[str, str], object]:
    wb = openpyxl.load_workbook(path)
    out: dict[tuple[str, str], object] = {}
    for ws in wb.worksheets:
        volatile_rows = set()
        if ws.title == "Run info":
            for row in ws.iter_rows():
                if row and isinstance(row[0].value, str) and row[0].value.strip().lower() in VOLATILE_INFO:
                    volatile_rows.add(row[0].row)
        for row in ws.iter_rows():
            for c in row:
                if c.value is None or c.row in volatile_rows:
                    continue
                out[(ws.title, c.coordinate)] = _norm(c.value)
    return out


def compare(before: Path, after: Path) -> list[str]:
    a, b = cells(before), cells(after)
    diffs = []
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            diffs.append(f"  {key[0]}!{key[1]}: {str(a.get(key))[:80]!r} -> {str(b.get(key))[:80]!r}")
    return diffs


def text(path: Path) -> str:
    raw = _PORT.sub("127.0.0.1:PORT", _TMP.sub("/tmp/TMP", path.read_text()))
    raw = re.sub(r"\bin \d+(?:\.\d+)? s\b", "in X s", raw)  # the summary's duration
    return _NUMBER_KEYS.sub(lambda m: f'"{m.group(1)}": X', raw)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--also-text", action="store_true")
    args = ap.parse_args()
    bad = 0
    for old in sorted(args.before.glob("*.xlsx")):
        new = args.after / old.name
        if not new.is_file():
            print(f"{old.name}: missing after")
            bad += 1
            continue
        diffs = compare(old, new)
        print(f"{old.name}: {'same' if not diffs else f'{len(diffs)} cells differ'} ({len(cells(old))} cells)")
        for line in diffs[:40]:
            print(line)
        bad += bool(diffs)
    if args.also_text:
        for old in sorted(args.before.glob("*.out")):
            new = args.after / old.name
            if not new.is_file():
                continue
            a, b = text(old), text(new)
            if a != b:
                try:  # JSON lines: say which keys differ
                    ja, jb = json.loads(a), json.loads(b)
                    keys = sorted(k for k in set(ja) | set(jb) if ja.get(k) != jb.get(k))
                    print(f"{old.name}: stdout differs in {keys}")
                except ValueError:
                    print(f"{old.name}: stdout differs")
            else:
                print(f"{old.name}: stdout same")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
