"""autofill/fileio.py: workbooks open in Excel or LibreOffice are never written over, read-only files
are not replaced, and write failures are one line about the real path (never the temporary file)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import pytest

from autofill.errors import InputError
from autofill.fileio import atomic_write_bytes, ensure_not_open, ensure_writable_file, lock_file, missing


@pytest.mark.parametrize("lock_name,app", [("~$q_Acme_filled.xlsx", "Excel"),
                                           (".~lock.q_Acme_filled.xlsx#", "LibreOffice")])
def test_a_workbook_open_in_an_office_suite_is_not_written(tmp_path, lock_name, app):
    target = tmp_path / "q_Acme_filled.xlsx"
    target.write_bytes(b"the reviewer's version")
    (tmp_path / lock_name).write_bytes(b"owner")
    assert lock_file(target) == (tmp_path / lock_name, app)
    with pytest.raises(InputError, match=rf"^close q_Acme_filled.xlsx in {app} first"):
        ensure_not_open(target)
    with pytest.raises(InputError, match=rf"close q_Acme_filled.xlsx in {app} first"):
        atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"the reviewer's version"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, lock_name])  # no temp file
    ensure_not_open(target, allow=(app,))  # --live expects Excel's own lock


def test_another_workbooks_lock_does_not_count(tmp_path):
    (tmp_path / "~$other.xlsx").write_bytes(b"owner")
    target = tmp_path / "q.xlsx"
    assert lock_file(target) is None
    atomic_write_bytes(target, b"data")
    assert target.read_bytes() == b"data"


def test_a_read_only_file_is_not_replaced_even_when_permissions_would_allow(tmp_path):
    target = tmp_path / "final.xlsx"
    target.write_bytes(b"signed off")
    target.chmod(0o444)
    try:
        with pytest.raises(InputError, match=rf"{target} is read-only"):
            atomic_write_bytes(target, b"new")
        with pytest.raises(InputError, match="is read-only"):
            ensure_writable_file(target)
        assert target.read_bytes() == b"signed off"
        assert [p.name for p in tmp_path.iterdir()] == ["final.xlsx"]
    finally:
        target.chmod(0o644)


@contextlib.contextmanager
def unwritable(folder: Path):
    """Make `folder` unwritable for this process: chmod for a normal user; for root (whom permissions
    do not stop) the immutable attribute, when the file system and capabilities allow it."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("running as root without chattr +i: cannot make a folder unwritable")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], capture_output=True)


def test_permission_errors_name_the_path_not_a_temp_file(tmp_path):
    folder = tmp_path / "shared"
    with unwritable(folder):
        with pytest.raises(InputError) as err:
            atomic_write_bytes(folder / "report.xlsx", b"data")
        message = str(err.value)
        assert str(folder) in message and ".tmp" not in message and "\n" not in message
        with pytest.raises(InputError, match=f"cannot write to output folder {folder}"):
            ensure_writable_file(folder / "report.xlsx", "output")
    assert list(folder.iterdir()) == []


def test_a_folder_where_the_file_should_be(tmp_path):
    (tmp_path / "out.xlsx").mkdir()
    with pytest.raises(InputError, match="out.xlsx is a folder, not a file"):
        atomic_write_bytes(tmp_path / "out.xlsx", b"x")


def test_missing_names_the_folder_it_looked_in(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert str(missing("questionnaire", "q.xlsx")) == f"questionnaire not found: q.xlsx (looked in {tmp_path.resolve()})"


def test_an_input_open_in_excel_is_read_with_a_warning(tmp_path, caplog):
    from autofill.fileio import warn_if_open

    q = tmp_path / "q.xlsx"
    q.write_bytes(b"x")
    assert warn_if_open(q) is False and not caplog.records
    (tmp_path / "~$q.xlsx").write_bytes(b"owner")
    with caplog.at_level("WARNING", logger="autofill"):
        assert warn_if_open(q) is True
    assert "q.xlsx is open in Excel: it is read as last saved" in caplog.text


def test_a_killed_saves_temp_file_is_removed_by_the_next_write(tmp_path):
    import sys

    from autofill.tempdirs import owner_tag

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    out = tmp_path / "q_filled.xlsx"
    dead = tmp_path / f".{out.name}.{owner_tag().rsplit('-', 1)[0]}-{proc.pid}-x1y2.tmp"  # kill -9 mid-save
    alive = tmp_path / f".{out.name}.{owner_tag()}-a1b2.tmp"  # a save going on in this process
    other = tmp_path / f".other.xlsx.{owner_tag().rsplit('-', 1)[0]}-{proc.pid}-x1y2.tmp"  # not this output's
    for p in (dead, alive, other):
        p.write_bytes(b"PK half a zip")
    atomic_write_bytes(out, b"whole")
    assert out.read_bytes() == b"whole"
    assert not dead.exists() and alive.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(f".{out.name}")) == [alive.name]
