"""A review pack: the review report in a folder that holds everything it links to, plus a zip of it,
for sending to a colleague or an auditor. `<stem>_review_pack/` next to the filled workbook:

    index.html        the review report; every link relative
    pages/            page images with the answer's sentences highlighted
    pdfs/             the cited PDFs, whole (so `#page=N` links and page indexes stay true)
    <workbook>.xlsx   a copy of the filled workbook whose Sources cells link into pdfs/

and `<stem>_review_pack.zip` with the same tree under one top folder. The folder is built by
write_review_report (under a temporary name, renamed into place); the zip is written to a temporary
file and renamed, so neither is ever seen half-written."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from urllib.parse import quote
from autofill.fileio import atomic_write_bytes
from autofill.workbook.hyperlinks import link_sources
from autofill.workbook.package import refresh_package
from autofill.workbook.safety import guard_workbook, load_workbook_safely

PDF_DIR = "pdfs"


def pack_dir_for(output_xlsx: Path) -> Path:
    output_xlsx = Path(output_xlsx)
    return output_xlsx.with_name(f"{output_xlsx.stem}_review_pack")


def fill_pack(build: Path, output_xlsx: Path, sources: dict) -> dict[str, str]:
    """Copy the cited PDFs that were found and the workbook (Sources linked into pdfs/) into `build`;
    return file name -> path inside the pack for each PDF copied."""
    packed: dict[str, str] = {}
    for name, source in sorted(sources.items()):
        if source.path is None or Path(name).name != name or name.startswith("."):
            continue  # not found, or a name that would leave the folder
        (build / PDF_DIR).mkdir(exist_ok=True)
        shutil.copyfile(source.path, build / PDF_DIR / name)
        packed[name] = f"{PDF_DIR}/{name}"
    wb = load_workbook_safely(output_xlsx, rich_text=True)
    link_sources(wb, lambda f, n: f"{quote(packed[f])}#page={n}" if f in packed else "")
    buffer = io.BytesIO()
    guard_workbook(wb)  # nothing an .xlsx cannot hold reaches the file, whatever path put it in
    wb.save(buffer)

    atomic_write_bytes(build / output_xlsx.name, refresh_package(buffer.getvalue(), output_xlsx.read_bytes()))
    return packed


def write_zip(folder: Path) -> Path:
    """`<folder>.zip` holding `folder`'s tree under its own name; returns the zip's path."""
    folder = Path(folder)
    target = folder.with_name(f"{folder.name}.zip")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}-", dir=folder.parent)
    try:
        with os.fdopen(fd, "wb") as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    zf.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
