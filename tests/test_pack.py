"""The shareable review pack (autofill/review/pack.py): a folder and zip holding the report, page
images, the cited PDFs and a workbook whose Sources link into them; every link resolves inside the
folder, also after the folder is moved to another place."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path
from urllib.parse import unquote

import openpyxl
from click.testing import CliRunner

from autofill.cli import cli
from autofill.review.report import write_review_report
from autofill.settings import Settings
from tests.review_fixtures import PDF_NAME, make_output_workbook, make_report_pdf


def _case(tmp_path, workspace):
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf = make_report_pdf(docs / PDF_NAME)
    (tmp_path / "out").mkdir()
    out = make_output_workbook(tmp_path / "out" / "filled.xlsx", run_info={"documents": {PDF_NAME: str(pdf)}})
    return Settings(workspace=workspace), out, pdf


def _links(folder: Path) -> list[str]:
    text = (folder / "index.html").read_text(encoding="utf-8")
    return re.findall(r'(?:href|src)="([^"]+)"', text)


def _assert_self_contained(folder: Path) -> None:
    links = [u for u in _links(folder) if not u.startswith("#")]
    assert links and not any(u.startswith(("file:", "http:", "https:", "/")) or ".." in u for u in links)
    for link in links:
        assert (folder / unquote(link.split("#")[0])).is_file(), link


def test_pack_holds_report_images_pdfs_and_a_linked_workbook(tmp_path, workspace):
    settings, out, pdf = _case(tmp_path, workspace)
    html = write_review_report(settings, out, pack=True)
    folder = out.parent / "filled_review_pack"
    assert html == folder / "index.html"
    assert (folder / "pdfs" / PDF_NAME).read_bytes() == pdf.read_bytes()
    assert list((folder / "pages").glob("*.png"))
    _assert_self_contained(folder)
    assert f"pdfs/{PDF_NAME.replace(' ', '%20')}#page=2" in _links(folder)
    assert "filled.xlsx" in _links(folder)

    ws = openpyxl.load_workbook(folder / "filled.xlsx")["Questionnaire"]
    linked = [c for row in ws.iter_rows() for c in row if c.hyperlink is not None]
    assert linked and linked[0].hyperlink.target == f"pdfs/{PDF_NAME.replace(' ', '%20')}#page=2"
    assert openpyxl.load_workbook(out)["Questionnaire"]["G5"].hyperlink is None  # the original is not touched

    # The zip holds the same tree under one folder.
    with zipfile.ZipFile(folder.with_name("filled_review_pack.zip")) as zf:
        names = set(zf.namelist())
    tree = {f"filled_review_pack/{p.relative_to(folder).as_posix()}" for p in folder.rglob("*") if p.is_file()}
    assert names == tree and f"filled_review_pack/pdfs/{PDF_NAME}" in names

    # Sent to a colleague: unzipped elsewhere with the originals gone, every link still resolves.
    elsewhere = tmp_path / "colleague"
    with zipfile.ZipFile(folder.with_name("filled_review_pack.zip")) as zf:
        zf.extractall(elsewhere)
    shutil.rmtree(tmp_path / "docs")
    shutil.rmtree(tmp_path / "out")
    _assert_self_contained(elsewhere / "filled_review_pack")


def test_cli_report_pack(tmp_path, workspace):
    _, out, _ = _case(tmp_path, workspace)
    result = CliRunner().invoke(cli, ["--workspace", str(workspace), "report", str(out), "--pack", "--json"])
    assert result.exit_code == 0, result.output
    assert '"zip":' in result.output and (out.parent / "filled_review_pack.zip").is_file()
    # A second pack replaces the first, atomically, with nothing left behind.
    result = CliRunner().invoke(cli, ["--workspace", str(workspace), "report", str(out), "--pack"])
    assert result.exit_code == 0 and "Review pack:" in result.output
    assert sorted(p.name for p in out.parent.iterdir()) == ["filled.xlsx", "filled_review_pack",
                                                            "filled_review_pack.zip"]
