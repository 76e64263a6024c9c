"""Questionnaire inputs at the edge (autofill/workbook/safety.py): CSV files in the encodings Excel and
other tools write, password-protected workbooks told apart from legacy .xls, and .xlsm files that leave
no `ZipFile.__del__` traceback behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from autofill.errors import InputError
from autofill.settings import Settings
from autofill.workbook.layout import read_questions
from autofill.workbook.safety import csv_encoding, decode_csv
from tests import cli_process
from tests.ole_builder import build_ole
from tests.workbook_builders import build_questionnaire, rewrite_zip

QUESTIONS = ["Does the company report Scope 3 emissions (t CO₂e) – yes or no?",
             "Quelle est la part d'électricité renouvelable ?"]
CP1252_QUESTIONS = ["Does the company report Scope 3 emissions – yes or no?",
                    "Quelle est la part d'électricité renouvelable (€) ?"]


def _csv(questions, sep=",") -> str:
    return f"Question{sep}Answer\r\n" + "".join(f"\"{q}\"{sep}\r\n" for q in questions)


@pytest.mark.parametrize("encoding,data", [
    ("utf-8", _csv(QUESTIONS).encode("utf-8")),
    ("utf-8-sig", _csv(QUESTIONS).encode("utf-8-sig")),  # Excel's "CSV UTF-8"
    ("utf-16", _csv(QUESTIONS, "\t").encode("utf-16")),  # Excel's "Unicode Text": BOM + UTF-16LE, tabs
    ("utf-16-le", _csv(QUESTIONS).encode("utf-16-le")),  # no BOM
    ("utf-16-be", _csv(QUESTIONS).encode("utf-16-be")),
    ("cp1252", _csv(CP1252_QUESTIONS, ";").encode("cp1252")),  # Excel's "CSV" on Western Windows
])
def test_csv_questionnaires_in_every_common_encoding(tmp_path, encoding, data):
    path = tmp_path / "q.csv"
    path.write_bytes(data)
    _, rows = read_questions(Settings(workspace=tmp_path), path)
    expected = CP1252_QUESTIONS if encoding == "cp1252" else QUESTIONS
    assert [r.question for r in rows] == expected


def test_csv_encoding_is_detected_from_the_bytes():
    assert csv_encoding("é".encode("utf-8")) == "utf-8"
    assert csv_encoding(b"\xef\xbb\xbfa") == "utf-8-sig"
    assert csv_encoding("a,b".encode("utf-16")) == "utf-16"
    assert csv_encoding("Question,Answer".encode("utf-16-le")) == "utf-16-le"
    assert csv_encoding("Question,Answer".encode("utf-16-be")) == "utf-16-be"
    assert csv_encoding("é €".encode("cp1252")) == "cp1252"
    assert decode_csv(b"\xef\xbb\xbfQuestion")[0] == "Question"  # the BOM is not part of the header
    assert decode_csv(b"\x81\x8d")[1] == "latin-1"  # bytes cp1252 leaves undefined still decode


def test_binary_junk_named_csv_is_one_clear_line(tmp_path):
    path = tmp_path / "q.csv"
    path.write_bytes(b"Question\x00\x00\x00\x00\x01\x02" * 50)
    with pytest.raises(InputError, match="q.csv: .*not a text CSV file"):
        read_questions(Settings(workspace=tmp_path), path)


def test_password_protected_workbook_with_its_directory_megabytes_in(tmp_path):
    """Excel writes the container's directory after the encrypted data: in a 5 MB file, past the
    first 4 MB a byte scan looked at, it was called an old binary .xls."""
    path = build_ole(tmp_path / "Secret questionnaire.xlsx", {
        "EncryptionInfo": b"\x04\x00\x04\x00\x40\x00\x00\x00" + b"\x00" * 200,
        "EncryptedPackage": os.urandom(5 * 1024 * 1024),
    })
    data = path.read_bytes()
    assert data.find("EncryptedPackage".encode("utf-16-le")) > 4 * 1024 * 1024
    with pytest.raises(InputError, match=r"Secret questionnaire.xlsx is a password-protected workbook; "
                                         r"remove the password in Excel") as err:
        read_questions(Settings(workspace=tmp_path), path)
    assert ".xls" not in str(err.value).replace(".xlsx", "")


def test_a_real_legacy_xls_is_still_called_one(tmp_path):
    path = build_ole(tmp_path / "old.xls", {"Workbook": b"\x09\x08" + b"\x00" * 6000})
    with pytest.raises(InputError, match="old binary Excel"):
        read_questions(Settings(workspace=tmp_path), path)


def test_encrypted_by_office_crypto_is_password_protected(tmp_path):
    """The same verdict for a workbook encrypted with MS-OFFCRYPTO agile encryption (msoffcrypto-tool)."""
    msoffcrypto = pytest.importorskip("msoffcrypto")
    from msoffcrypto.format.ooxml import OOXMLFile

    plain = build_questionnaire(tmp_path / "plain.xlsx")
    secret = tmp_path / "secret.xlsx"
    with open(plain, "rb") as src, open(secret, "wb") as out:
        OOXMLFile(src).encrypt("pa55word", out)
    assert msoffcrypto  # imported for the encrypt above
    with pytest.raises(InputError, match="password-protected workbook"):
        read_questions(Settings(workspace=tmp_path), secret)


def _xlsm(tmp_path: Path) -> Path:
    """A small macro workbook (a VBA part and the macro-enabled content type), as Excel saves one."""
    import openpyxl

    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = "Question", "Does the company have a net zero target?"
    xlsm = tmp_path / "q.xlsm"
    wb.save(xlsm)
    ct = '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>'
    rewrite_zip(xlsm, {
        "xl/vbaProject.bin": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100,
        "[Content_Types].xml": lambda x: x.replace(
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
            "application/vnd.ms-excel.sheet.macroEnabled.main+xml").replace("<Default ", ct + "<Default ", 1),
    })
    return xlsm


def test_xlsm_leaves_no_zipfile_traceback(tmp_path):
    """`autofill inspect` and a run's reading of a .xlsm used to end with `Exception ignored in:
    <function ZipFile.__del__>` and a traceback on stderr."""
    xlsm = _xlsm(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    out = cli_process.run(["--workspace", str(tmp_path), "run", "--company", "Nobody", "--questionnaire", str(xlsm)],
                          env=env, cwd=tmp_path)
    assert out.returncode == 2 and "no evidence store" in out.stderr
    assert "Exception ignored" not in out.stderr and "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1


def test_xlsm_macros_survive_the_detached_archive(tmp_path):
    from autofill.workbook.safety import load_workbook_safely

    wb = load_workbook_safely(_xlsm(tmp_path))
    assert wb.vba_archive.read("xl/vbaProject.bin").startswith(b"\xd0\xcf\x11\xe0")
