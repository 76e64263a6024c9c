"""Which files an ingest takes from the folders it is given (autofill/ingest/walk.py): recursive by
default, every file met and not taken listed with its reason."""

from __future__ import annotations

import os

import pytest

from autofill.ingest.pipeline import ingest_paths
from autofill.ingest.walk import expand_paths
from autofill.settings import Settings
from tests import pdf_factory as pf
from tests.fakes import FakeEmbedder


def pdf(path, text="Scope 1 emissions at the smelter were 120 kt in 2024."):
    path.parent.mkdir(parents=True, exist_ok=True)
    return pf.make_text_pdf(path, [text])


@pytest.fixture
def tree(tmp_path):
    """reports/ a.pdf, b.PDF, notes.txt, .DS_Store, .draft.pdf, .git/x.pdf, 2023/c.pdf, 2023/old/d.pdf,
    empty/"""
    r = tmp_path / "reports"
    files = {name: pdf(r / where, f"Report {name}: Scope 1 emissions at the smelter were 120 kt.")
             for name, where in [("a", "a.pdf"), ("b", "b.PDF"), ("c", "2023/c.pdf"), ("d", "2023/old/d.pdf")]}
    (r / "notes.txt").write_text("not a report")
    (r / ".DS_Store").write_bytes(b"\0")
    pdf(r / ".draft.pdf")
    pdf(r / ".git" / "x.pdf")
    (r / "empty").mkdir()
    return r, files


def test_folders_are_walked_recursively_in_name_order(tree):
    root, f = tree
    found = expand_paths([root])
    assert found.files == [f["a"], f["b"], f["c"], f["d"]]  # a folder's files, then its subfolders
    assert found.failed == []
    assert {os.path.relpath(s.path, root): s.reason for s in found.skipped} == {
        ".DS_Store": "hidden file", ".draft.pdf": "hidden file", ".git": "hidden folder",
        "notes.txt": "not a PDF",
    }


def test_no_recursive_lists_the_subfolders_it_did_not_search(tree):
    root, f = tree
    found = expand_paths([root], recursive=False)
    assert found.files == [f["a"], f["b"]]
    skipped = {os.path.relpath(s.path, root): s.reason for s in found.skipped}
    assert skipped["2023"] == "subfolder not searched (--no-recursive); it holds 2 PDFs"
    assert skipped["empty"] == "subfolder not searched (--no-recursive)"


def test_a_folder_with_pdfs_only_further_down_says_so(tmp_path):
    top = tmp_path / "top"
    pdf(top / "2024" / "r.pdf")
    assert expand_paths([top]).files == [top / "2024" / "r.pdf"]
    failed = expand_paths([top], recursive=False).failed
    assert [f.error for f in failed] == [
        "folder contains no PDF files (its subfolders hold 1; leave out --no-recursive)"]
    (tmp_path / "bare" / "sub").mkdir(parents=True)
    assert [f.error for f in expand_paths([tmp_path / "bare"]).failed] == [
        "folder contains no PDF files (nor do its subfolders)"]


def test_duplicates_links_and_loops(tmp_path):
    root = tmp_path / "r"
    a = pdf(root / "a.pdf")
    (root / "same-as-a.pdf").symlink_to(a)
    (root / "gone.pdf").symlink_to(root / "deleted.pdf")
    (root / "loop").symlink_to(root)  # a folder link back up: must not walk for ever
    found = expand_paths([root, a, root / "a.pdf"])
    assert found.files == [a]
    skipped = {os.path.relpath(s.path, root): s.reason for s in found.skipped}
    assert skipped == {
        "gone.pdf": "unreadable: a link to a file that does not exist",
        "loop": "a link to a folder already searched",
        "same-as-a.pdf": f"duplicate: the same file as {a}",
    }


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_files_are_skipped_with_the_reason(tmp_path):
    secret = pdf(tmp_path / "r" / "secret.pdf")
    secret.chmod(0)
    try:
        found = expand_paths([tmp_path / "r"])
        assert [(s.reason) for s in found.skipped] == ["unreadable: permission denied"]
    finally:
        secret.chmod(0o644)


def test_named_files_that_cannot_be_ingested_fail(tmp_path):
    txt = tmp_path / "notes.txt"
    txt.write_text("x")
    found = expand_paths([tmp_path / "missing.pdf", txt])
    assert [f.error for f in found.failed] == ["no such file or folder", "not a PDF file (expected a .pdf report)"]
    hidden = pdf(tmp_path / ".named.pdf")
    assert expand_paths([hidden]).files == [hidden]  # named on purpose: taken


def test_the_ingest_reports_skipped_files_and_keeps_input_order(workspace, tree):
    root, f = tree
    settings = Settings(workspace=workspace)
    report = ingest_paths(settings, "BHP", [root], embedder=FakeEmbedder())
    assert [o.path for o in report.files] == [str(f[k]) for k in "abcd"]
    assert [o.status for o in report.files] == ["new"] * 4
    assert report.to_json()["skipped_files"] == 4 == len(report.skipped_files)
    shallow = ingest_paths(settings, "ACME", [root], embedder=FakeEmbedder(), recursive=False)
    assert [o.path for o in shallow.files] == [str(f["a"]), str(f["b"])]
    assert shallow.to_json()["skipped_files"] == 6


def test_the_same_content_twice_in_one_ingest_is_stored_once(workspace, tmp_path):
    a = pdf(tmp_path / "2023" / "report.pdf")
    copy = tmp_path / "archive" / "report-copy.pdf"
    copy.parent.mkdir()
    copy.write_bytes(a.read_bytes())
    report = ingest_paths(Settings(workspace=workspace), "BHP", [tmp_path], embedder=FakeEmbedder())
    assert [(o.status, o.error) for o in report.files] == [
        ("new", ""), ("skipped", "same content as report.pdf, already in this ingest")]
