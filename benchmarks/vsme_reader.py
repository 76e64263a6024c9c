"""EFRAG's own template reader as the oracle for what autofill writes into a VSME workbook (issue 45).

    python benchmarks/vsme_reader.py [--reader-python ../vsme-reader-venv/bin/python] [--keep DIR]

EFRAG's converter (../shared/vsme/converter, run in its own virtual environment, never a dependency of
autofill: see ../shared/vsme/README.md) reads a filled VSME Digital Template with cached values only,
as pandas and most bank pipelines do, and turns its named ranges into XBRL facts. The cases:

  sample as received        EFRAG's filled sample, read as it is (the reference: 144 facts)
  sample, openpyxl save     what autofill did before: loaded and saved by openpyxl (cached values dropped)
  sample, patch_cells       opened and saved by autofill's package writer with no write
  sample, writeback save    openpyxl's save as writeback does it, then the cached values put back
                            (workbook/recalc.py: the engine refuses this package, the received values stay)
  blank, openpyxl fill      the blank template given the sample's input values through openpyxl (before)
  blank, patch_cells fill   the same values through patch_cells (every formula recomputed by formualizer)

For each: facts, error and warning messages, and for the filled blank the facts that differ from the
sample's (a fact is concept, dimensions, period and value). Also the seconds and peak memory autofill
took per write. Needs ../shared/vsme and the reader's virtual environment."""

from __future__ import annotations

import argparse
import datetime
import io
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# ../shared beside the checkout (a worktree under wt/ looks one folder further up)
HOME = next((p for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared" / "vsme").exists()), ROOT.parent)
VSME = HOME / "shared" / "vsme"
BLANK = VSME / "VSME-Digital-Template-1.3.0.xlsx"
SAMPLE = VSME / "VSME-Digital-Template-Sample-1.3.0.xlsx"
CONVERTER = VSME / "converter"

READER = r"""
import json, sys, mireport
from mireport.conversionresults import ConversionResultsBuilder
from mireport.data.disclosures import VSME_DEFAULTS
from mireport.xlsx_template_reader.processor import XlsxProcessor
mireport.loadBuiltInTaxonomyJSON()
out = {}
for path in sys.argv[1:]:
    res = ConversionResultsBuilder(consoleOutput=False)
    facts, fatal = [], ""
    try:
        report = XlsxProcessor.from_file(path, res, VSME_DEFAULTS).createReport()
        for f in report.facts:
            aspects = sorted(f"{k}={v}" for k, v in f.aspects.items())
            facts.append(f"{f.concept.qname} {aspects} {f.period} = {f.value}")
    except Exception as exc:
        fatal = f"{type(exc).__name__}: {exc}"
    messages = [(m.severity.name, str(m)) for m in res.build().messages]
    out[path] = {"facts": sorted(facts), "fatal": fatal, "messages": messages}
print(json.dumps(out))
"""


def read_with_efrag(python: Path, paths: list[Path]) -> dict:
    env = {"PYTHONPATH": f"{CONVERTER / 'src'}:{CONVERTER / 'stand-ins'}", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([str(python), "-c", READER, *map(str, paths)], capture_output=True, text=True, env=env,
                          timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"the EFRAG reader failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def sample_inputs():
    """The sample's input values that the blank template lacks: every non-formula cell of a sheet both
    have whose value differs, typed as openpyxl reads it (dates as dates)."""
    import openpyxl

    from autofill.workbook.package import CellWrite

    blank = openpyxl.load_workbook(BLANK)
    sample = openpyxl.load_workbook(SAMPLE)
    writes, skipped = [], []
    for ws in sample.worksheets:
        if ws.title not in blank.sheetnames:
            skipped.append(ws.title)
            continue
        target = blank[ws.title]
        for row in ws.iter_rows():
            for c in row:
                value = c.value
                if value is None or c.data_type == "f" or not isinstance(value, (str, int, float, bool,
                                                                                  datetime.date)):
                    continue
                old = target[c.coordinate]
                if old.data_type == "f" or old.value == value:
                    continue
                if isinstance(value, datetime.datetime) and value.time() == datetime.time(0):
                    value = value.date()
                writes.append(CellWrite(ws.title, c.coordinate, value))
    return writes, skipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader-python", type=Path, default=HOME / "vsme-reader-venv" / "bin" / "python")
    parser.add_argument("--keep", type=Path, help="keep the written workbooks in this folder")
    args = parser.parse_args()
    if not SAMPLE.exists() or not args.reader_python.exists():
        raise SystemExit(f"needs {SAMPLE} and the reader's Python at {args.reader_python} (../shared/vsme/README.md)")
    import logging

    import openpyxl

    from autofill.workbook.package import patch_cells, refresh_package
    from autofill.workbook.safety import load_workbook_safely

    logging.basicConfig(level=logging.WARNING, format="  (%(name)s: %(message)s)")
    folder = Path(args.keep or tempfile.mkdtemp(prefix="vsme-reader-"))
    folder.mkdir(parents=True, exist_ok=True)
    cases: dict[str, Path] = {"sample as received": SAMPLE}
    timing: dict[str, tuple[float, float]] = {}

    def timed(name: str, path: Path, write) -> None:
        start = time.perf_counter()
        write(path)
        timing[name] = (time.perf_counter() - start, peak_mb())
        cases[name] = path

    def openpyxl_save(src: Path, dst: Path, writes=()) -> None:
        wb = openpyxl.load_workbook(src)
        for w in writes:
            wb[w.sheet][w.ref] = w.value
        wb.save(dst)

    def writeback_save(dst: Path) -> None:
        wb = load_workbook_safely(SAMPLE, rich_text=True)
        buffer = io.BytesIO()
        wb.save(buffer)
        dst.write_bytes(refresh_package(buffer.getvalue(), SAMPLE.read_bytes()))

    timed("sample, openpyxl save", folder / "sample-openpyxl.xlsx", lambda p: openpyxl_save(SAMPLE, p))
    timed("sample, patch_cells", folder / "sample-patch.xlsx", lambda p: patch_cells(SAMPLE, p, []))
    timed("sample, writeback save", folder / "sample-writeback.xlsx", writeback_save)
    writes, skipped = sample_inputs()
    timed("blank, openpyxl fill", folder / "blank-openpyxl.xlsx", lambda p: openpyxl_save(BLANK, p, writes))
    timed("blank, patch_cells fill", folder / "blank-patch.xlsx", lambda p: patch_cells(BLANK, p, writes))
    print(f"{len(writes)} input values of the sample written into the blank template"
          + (f" (sheets only the sample has, left out: {', '.join(skipped)})" if skipped else ""))

    start = time.perf_counter()
    read = read_with_efrag(args.reader_python, list(cases.values()))
    print(f"EFRAG's reader: {time.perf_counter() - start:.0f} s for {len(cases)} workbooks\n")
    reference = set(read[str(SAMPLE)]["facts"])
    print(f"{'case':26s} {'facts':>5s} {'errors':>6s} {'warnings':>8s} {'vs sample':>14s} {'seconds':>8s} "
          f"{'peak MB':>8s}")
    for name, path in cases.items():
        got = read[str(path)]
        facts = set(got["facts"])
        errors = [m for s, m in got["messages"] if s in ("ERROR", "FATAL")]
        warnings = [m for s, m in got["messages"] if s == "WARNING"]
        diff = f"-{len(reference - facts)} +{len(facts - reference)}"
        secs, mb = timing.get(name, (0.0, 0.0))
        print(f"{name:26s} {len(facts):5d} {len(errors) + bool(got['fatal']):6d} {len(warnings):8d} {diff:>14s} "
              f"{secs:8.1f} {mb:8.0f}")
        for line in ([got["fatal"]] if got["fatal"] else []) + errors[:3]:
            print(f"    {line[:160]}")
        for fact in sorted(reference - facts)[:5] if name.startswith("blank, patch") else []:
            print(f"    missing: {fact[:160]}")
        for fact in sorted(facts - reference)[:5] if name.startswith("blank, patch") else []:
            print(f"    extra:   {fact[:160]}")
    print(f"\nworkbooks in {folder}")


if __name__ == "__main__":
    main()
