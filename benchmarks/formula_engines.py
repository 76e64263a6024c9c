"""Which engine computes the formulas' cached values (issue 45, workbook/recalc.py): time, peak memory
and agreement with the values Excel cached in EFRAG's filled VSME sample (3,722 formulas: IF/IFS,
XLOOKUP, VLOOKUP/INDEX/MATCH, COUNTIF, dynamic arrays, names across sheets).

    python benchmarks/formula_engines.py [--formulas-python VENV/bin/python] [--libreoffice soffice]

Each engine gets the sample after an openpyxl save (every cached value dropped, as autofill's writeback
leaves it) or, for formualizer, also the sample as received; a value agrees when it equals Excel's
(numbers to 1e-9 relative, text after XML unescaping). Engines:

  formualizer   the dependency (MIT, Rust wheel, 22 MB, no dependencies), in this process
  LibreOffice   headless conversion with "recalculate on load: always" (Debian 7.4: 276 MB installed)
  formulas      the `formulas` package (EUPL 1.1; numpy, scipy, schedula: 268 MB) in its own venv, slow:
                only with --formulas-python (measured once: 370 s to compile, 113 s to compute, 2.8 GB)

pycel is GPL-3 and was not considered for a dependency. Needs ../shared/vsme."""

from __future__ import annotations

import argparse
import html
import io
import re

import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
HOME = next((p for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared" / "vsme").exists()), ROOT.parent)
SAMPLE = HOME / "shared" / "vsme" / "VSME-Digital-Template-Sample-1.3.0.xlsx"
_CELL = re.compile(r"<c\b([^>]*?)(?:/>|>(.*?)</c>)", re.S)

LO_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">
<value>0</value></prop></item></oor:items>
"""

FORMUALIZER = r"""
import sys, time, resource, formualizer
from pathlib import Path
folder = Path(sys.argv[1]); data = (folder / "in.xlsx").read_bytes(); start = time.perf_counter(); error = ""
try:
    (folder / "out.xlsx").write_bytes(formualizer.recalculate_xlsx_bytes(data)["bytes"])
except Exception as exc:
    error = str(exc).replace("\t", " ")
mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{time.perf_counter() - start:.2f}\t{mb:.0f}\t{error}")
"""

FORMULAS = r"""
import sys, json, time, resource, formulas
t = time.time(); xl = formulas.ExcelModel().loads(sys.argv[1]).finish(); t1 = time.time(); sol = xl.calculate()
out = {k: (None if v.value[0, 0] is None else str(v.value[0, 0])) for k, v in sol.items()}
print(json.dumps({"compile": t1 - t, "compute": time.time() - t1,
                  "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "values": out}))
"""


def formula_values(data: bytes) -> dict[tuple[str, str], str | None]:
    """(sheet name, ref) -> cached text of every formula cell (unescaped; None when there is none)."""
    from autofill.workbook.xlsx_parts import Package

    package = Package(data)
    out = {}
    for sheet, part in package.sheets.items():
        for m in _CELL.finditer(package.text(part)):
            body = m.group(2) or ""
            if "<f" not in body:
                continue
            ref = re.search(r'(?<![\w:])r="([A-Z]+[0-9]+)"', m.group(1)).group(1)
            v = re.search(r"<v(?:\s[^>]*)?>([^<]*)</v>", body)
            text = v.group(1) if v else ("" if "<v/>" in body else None)
            out[(sheet, ref)] = None if text is None else html.unescape(text).replace("\r\n", "\n")
    return out


def agree(excel: dict, got: dict) -> tuple[int, int, list]:
    keys = [k for k, v in excel.items() if v is not None]
    bad = []
    for k in keys:
        a, b = excel[k], got.get(k)
        if a == b:
            continue
        try:
            if b is not None and abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(a))):
                continue
        except ValueError:
            if {a, b} <= {"1", "True"} or {a, b} <= {"0", "False"}:
                continue
        bad.append((k, a[:40], None if b is None else b[:40]))
    return len(keys), len(keys) - len(bad), bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--formulas-python", type=Path, help="a venv's python with `formulas[excel]` installed")
    parser.add_argument("--libreoffice", default=shutil.which("soffice") or "")
    args = parser.parse_args()
    if not SAMPLE.exists():
        raise SystemExit(f"needs {SAMPLE}")
    import openpyxl

    received = SAMPLE.read_bytes()
    excel = formula_values(received)
    wb = openpyxl.load_workbook(io.BytesIO(received))
    buffer = io.BytesIO()
    wb.save(buffer)
    stripped = buffer.getvalue()
    print(f"{sum(v is not None for v in excel.values())} formulas with a value cached by Excel; "
          f"after openpyxl's save: {sum(v is not None for v in formula_values(stripped).values())}")
    print(f"{'engine':38s} {'seconds':>8s} {'peak MB':>8s} {'agree':>12s}")

    def show(name: str, secs: float, mb: float, got: dict | None, note: str = "") -> None:
        if got is None:
            print(f"{name:38s} {secs:8.1f} {mb:8.0f} {'refused':>12s}  {note[:90]}")
            return
        n, ok, bad = agree(excel, got)
        print(f"{name:38s} {secs:8.1f} {mb:8.0f} {ok:5d} / {n:5d}")
        for b in bad[:3]:
            print(f"    differs: {b}")

    for label, data in (("formualizer, sample as received", received), ("formualizer, after openpyxl", stripped)):
        with tempfile.TemporaryDirectory() as tmp:  # its own process: its own peak memory
            (Path(tmp) / "in.xlsx").write_bytes(data)
            done = subprocess.run([sys.executable, "-c", FORMUALIZER, tmp], capture_output=True, text=True,
                                  timeout=300)
            secs, mb, error = (done.stdout.rstrip("\n").splitlines()[-1].split("\t", 2) + ["", ""])[:3]
            out = Path(tmp) / "out.xlsx"
            show(label, float(secs), float(mb), formula_values(out.read_bytes()) if not error else None, error)
    from autofill.workbook.package import patch_bytes, refresh_package

    start = time.perf_counter()
    got = formula_values(patch_bytes(received, []))
    show("autofill patch_cells (formualizer+kept)", time.perf_counter() - start, 0, got)
    start = time.perf_counter()
    got = formula_values(refresh_package(stripped, received))
    show("autofill writeback save (fallback)", time.perf_counter() - start, 0, got)

    if args.libreoffice:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            (tmp / "profile" / "user").mkdir(parents=True)
            (tmp / "profile" / "user" / "registrymodifications.xcu").write_text(LO_PROFILE)
            (tmp / "in.xlsx").write_bytes(stripped)
            start = time.perf_counter()
            done = subprocess.run(["/usr/bin/time", "-f", "%M", args.libreoffice,
                                   f"-env:UserInstallation=file://{tmp / 'profile'}", "--headless", "--calc",
                                   "--convert-to", "xlsx", "--outdir", str(tmp / "out"), str(tmp / "in.xlsx")],
                                  capture_output=True, text=True, timeout=300)
            secs = time.perf_counter() - start
            mb = int(done.stderr.strip().splitlines()[-1]) / 1024 if done.stderr.strip() else 0
            out = tmp / "out" / "in.xlsx"
            show("LibreOffice headless, after openpyxl", secs, mb, formula_values(out.read_bytes())
                 if out.exists() else None, done.stderr[-200:])
    if args.formulas_python:
        import json

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "in.xlsx"
            path.write_bytes(stripped)
            done = subprocess.run([str(args.formulas_python), "-c", FORMULAS, str(path)], capture_output=True,
                                  text=True, timeout=1200)
            result = json.loads(done.stdout.strip().splitlines()[-1])
            got = {}
            names = {s.upper(): s for s in wb.sheetnames}
            for key, value in result["values"].items():
                m = re.match(r"'\[[^\]]+\](.+)'!([A-Z]+\d+)$", key)
                if m and m.group(1) in names:
                    got[(names[m.group(1)], m.group(2))] = value
            show("formulas, after openpyxl", result["compile"] + result["compute"], result["mb"], got)


if __name__ == "__main__":
    main()
