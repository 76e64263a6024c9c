"""Portfolio manifests: the same three companies from .csv, .xlsx and .toml; reports as a folder, a
glob or a `;` list; one InputError line per bad entry; --companies."""

from __future__ import annotations

import pytest

from autofill.errors import InputError
from autofill.portfolio.manifest import read_manifest
from tests.pdf_factory import make_text_pdf
from tests.portfolio_helpers import COMPANIES, entries, write_manifest
from tests.workbook_builders import build_questionnaire


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("pf")
    entries(root)  # reports and questionnaire, once
    return root


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "toml"])
def test_three_companies_in_each_format(root, fmt):
    got = read_manifest(write_manifest(root, entries(root), fmt))
    assert [e.company for e in got] == list(COMPANIES)
    folder, globbed, listed = got
    assert folder.reports == (root / "reports" / "alpha",)  # a folder stays a folder: ingest expands it
    assert globbed.reports == (root / "reports" / "beta" / "Beta sustainability report 2024.pdf",)
    assert listed.reports == (root / "reports" / "gamma" / "Gamma sustainability report 2024.pdf",)
    assert all(e.questionnaire == root / "questionnaire.xlsx" and e.year == "2024" for e in got)
    assert got[0].where.startswith(f"portfolio.{fmt} ")


def test_reports_separated_by_semicolons_and_output_names(root, tmp_path):
    a = make_text_pdf(tmp_path / "a.pdf", ["Scope 1 emissions were 10 kt."])
    b = make_text_pdf(tmp_path / "b.pdf", ["Water use was 2 GL."])
    build_questionnaire(tmp_path / "q.xlsx")
    (tmp_path / "p.csv").write_text("\ufeffCompany;Reports;Questionnaire;Output\n"
                                    "Delta;\"a.pdf; b.pdf\";q.xlsx;delta answers\n", encoding="utf-8")
    (e,) = read_manifest(tmp_path / "p.csv")
    assert e.reports == (a, b) and e.output == "delta answers.xlsx"


def test_every_bad_entry_is_one_line(root, tmp_path):
    rows = entries(root)
    rows.append({"company": "Alpha Mining", "reports": "reports/alpha", "questionnaire": "questionnaire.xlsx",
                 "output": "", "year": ""})  # duplicate
    rows.append({"company": "Nope", "reports": "reports/none/*.pdf", "questionnaire": "missing.xlsx",
                 "output": "../elsewhere.xlsx", "year": "24"})
    rows.append({"company": "", "reports": "reports/alpha", "questionnaire": "questionnaire.xlsx",
                 "output": "", "year": ""})
    path = write_manifest(root, rows, "csv")
    with pytest.raises(InputError) as err:
        read_manifest(path)
    lines = str(err.value).splitlines()
    assert len(lines) == 3, lines
    assert lines[0].startswith("portfolio.csv line 5 (Alpha Mining): company 'Alpha Mining' is already listed")
    assert "line 6 (Nope)" in lines[1] and "matches no PDF" in lines[1] and "'missing.xlsx' does not exist" in lines[1]
    assert "must be a file name" in lines[1] and "'24' is not a year" in lines[1]
    assert "line 7: company is empty" in lines[2]


def test_header_and_format_errors(tmp_path):
    (tmp_path / "p.csv").write_text("name,files\nA,a.pdf\n", encoding="utf-8")
    with pytest.raises(InputError, match="no header row with a `company` column"):
        read_manifest(tmp_path / "p.csv")
    (tmp_path / "p.csv").write_text("company,files\nA,a.pdf\n", encoding="utf-8")
    with pytest.raises(InputError, match="lacks the columns reports, questionnaire"):
        read_manifest(tmp_path / "p.csv")
    (tmp_path / "p.json").write_text("{}")
    with pytest.raises(InputError, match="expected a .csv, .xlsx or .toml"):
        read_manifest(tmp_path / "p.json")
    (tmp_path / "p.toml").write_text('[[company]]\ncompany = "A"\nfiles = "a.pdf"\n')
    with pytest.raises(InputError, match="unknown key files"):
        read_manifest(tmp_path / "p.toml")
    with pytest.raises(InputError, match="portfolio file not found"):
        read_manifest(tmp_path / "absent.csv")


def test_only_some_companies(root):
    path = write_manifest(root, entries(root), "csv")
    assert [e.company for e in read_manifest(path, ["gamma energy", "Alpha Mining"])] == ["Alpha Mining", "Gamma Energy"]
    with pytest.raises(InputError, match="'Omega' not in portfolio.csv"):
        read_manifest(path, ["Omega"])
