"""A damaged output is never the end of a reviewer's work (workbook/recovery.py): `run` and `review` say
in one line which file is damaged, keep it aside, and go on from the newest copy in history/ that opens,
with its reviews and Review log; decisions that copy lacks are written again from the review sidecar."""

from __future__ import annotations

import openpyxl
import pytest

from autofill.workbook.history import keep_previous, versions
from autofill.workbook.recovery import damage, last_good, recover
from tests.workbook_builders import build_questionnaire, rewrite_zip

SHEET = "xl/worksheets/sheet1.xml"


def corrupt(path) -> bytes:
    """Damage `path` the way raw U+FFFF text did: a sheet part that is no longer well-formed XML."""
    rewrite_zip(path, {SHEET: lambda xml: xml.replace("</sheetData>", "<row r=\"999\"><c t=\"inlineStr\"><is><t>\uffff"
                                                                       "</t></is></c></row></sheetData>")})
    return path.read_bytes()


def test_damage_names_what_is_wrong(tmp_path):
    good = build_questionnaire(tmp_path / "q.xlsx")
    assert damage(good) == ""
    bad = build_questionnaire(tmp_path / "bad.xlsx")
    corrupt(bad)
    assert damage(bad).startswith(f"its part {SHEET} is not well-formed XML (not well-formed (invalid token)")
    cut = tmp_path / "cut.xlsx"
    cut.write_bytes(good.read_bytes()[:3000])
    assert "corrupt" in damage(cut)


def test_recover_keeps_the_damaged_file_and_restores_the_newest_copy_that_opens(tmp_path):
    out = build_questionnaire(tmp_path / "out.xlsx")
    first = keep_previous(out)  # a good copy
    wb = openpyxl.load_workbook(out)
    wb.active["A1"] = "second version"
    wb.save(out)
    second = keep_previous(out)  # the newest good copy
    corrupt(out)
    keep_previous(out)  # and a damaged copy, newer still (a run keeps the file it replaces)
    broken = corrupt(out)
    assert last_good(out) == second and len(versions(out)) == 3 and first in versions(out)
    recovery = recover(out)
    assert recovery.restored == second and recovery.damaged.read_bytes() == broken
    assert recovery.damaged.name.startswith("out.damaged.") and recovery.damaged.parent == out.parent
    assert out.read_bytes() == second.read_bytes() and damage(out) == ""
    assert recovery.message() == (f"out.xlsx is damaged ({recovery.why}); kept as {recovery.damaged.name}; continuing "
                                  f"from its last good version history/{second.name} (its reviews and Review log "
                                  "included)")
    assert recover(out) is None  # it opens now: nothing to do
    # Twice in one second: the second damaged file gets its own name, the first is kept.
    corrupt(out)
    assert recover(out).damaged != recovery.damaged and recovery.damaged.read_bytes() == broken


def test_without_a_copy_that_opens(tmp_path):
    out = build_questionnaire(tmp_path / "out.xlsx")
    broken = corrupt(out)
    left = recover(out, without_copy=False)  # review: nothing to go on from, nothing moved
    assert left.restored is None and left.damaged == out and out.read_bytes() == broken
    assert "no copy in history/ opens" in left.message("x") and "kept as" not in left.message("x")
    moved = recover(out)  # run: kept aside, the run starts from the questionnaire
    assert moved.restored is None and not out.exists() and moved.damaged.read_bytes() == broken


# ------------------------------------------------------------------ as users run it


@pytest.fixture
def reviewed(tmp_path, llm_server):
    """A company's output after a run and two review sessions (each one decision, each session copying
    the workbook into history/ before its first write); the row key decided and the loopback model's env."""
    from tests.rows_helpers import cli, company_reports, env_for, last_json, questionnaire, responder

    llm_server.responder = responder()
    env = env_for(llm_server)
    questionnaire(tmp_path / "q.xlsx")
    company_reports(tmp_path / "reports", "Acme", 31, 1200)
    assert cli(tmp_path, env, "ingest", "--company", "Acme", "reports").returncode == 0
    proc = cli(tmp_path, env, "run", "--company", "Acme", "--questionnaire", "q.xlsx", "--json")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "reports_out" / "q_Acme_filled.xlsx"
    assert last_json(proc)["output"] == str(out)
    from autofill.settings import Settings
    from autofill.workbook.layout import read_questions

    keys = [q.key for q in read_questions(Settings(), out)[1]]
    decide(tmp_path, out, keys[0], "Approve", reviewer_comment="Checked on p. 1")
    decide(tmp_path, out, keys[1], "Needs changes", answer="About 1,200 people", reviewer_comment="Say employees")
    return tmp_path, out, keys, env


def decide(workspace, out, key, action, **values) -> None:
    """One decision through the real review server, which writes it into the workbook as it stops."""
    import json

    from tests.review_app_helpers import ReviewServer, server_env
    from tests.test_review_app_limits import _post, _version

    with ReviewServer(workspace, out, env=server_env()) as srv:
        body = {"key": key, "base": _version(srv, key), "reviewer": "Ana", "action": action, "values": values}
        status, data = _post(srv, "decide", json.dumps(body).encode())
        if status == 428:  # the approval of a row whose checks failed, confirmed by name
            status, data = _post(srv, "decide", json.dumps({**body, "confirm": data["confirm"]}).encode())
        assert status == 200, data
        assert srv.stop() == 0


def _row(out, key):
    from autofill.settings import Settings
    from autofill.workbook.layout import read_questions

    return next(q for q in read_questions(Settings(), out)[1] if q.key == key)


def _logged(out) -> list[tuple]:
    from autofill.review_app.apply import read_log

    return [(e["Action"], e["Field"]) for e in read_log(out)]


def test_run_and_review_recover_a_damaged_output_with_its_reviews(reviewed, llm_server):
    from tests.review_app_helpers import ReviewServer, server_env
    from tests.rows_helpers import cli, last_json
    from tests.test_review_app_limits import _version

    root, out, keys, env = reviewed
    log_before = _logged(out)
    assert ("Approve", "Review") in log_before and ("Needs changes", "Answer") in log_before
    broken = corrupt(out)
    calls = len(llm_server.chat_requests())

    # `run`: one line naming the damaged file; the newest history copy that opens (the first review
    # session's) is continued, the approval kept; the second decision, which that copy lacks, is
    # written again by the next review.
    proc = cli(root, env, "run", "--company", "Acme", "--questionnaire", "q.xlsx", "--json")
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "is damaged" in ln]
    assert len(lines) == 1 and lines[0].startswith("autofill: warning: q_Acme_filled.xlsx is damaged (its part "
                                                   "xl/worksheets/sheet1.xml is not well-formed XML"), proc.stderr
    assert "continuing from its last good version history/" in lines[0] and "1 later review decisions" in lines[0]
    aside = sorted(out.parent.glob("q_Acme_filled.damaged.*.xlsx"))
    assert len(aside) == 1 and aside[0].read_bytes() == broken
    data = last_json(proc)
    assert data["output"] == str(out) and data["answered"] == 0, data  # nothing started again
    assert len(llm_server.chat_requests()) == calls
    approved = _row(out, keys[0])
    assert approved.review == "Approved" and approved.reviewer_comment == "Checked on p. 1"
    assert ("Approve", "Review") in _logged(out)
    with ReviewServer(root, out, env=server_env()) as srv:  # writes the decision the copy lacked
        assert srv.stop() == 0
    assert _row(out, keys[1]).existing_answer == "About 1,200 people" and _logged(out) == log_before

    # `review`: the same, said in one line, and the reviewer goes on from the recovered workbook.
    broken = corrupt(out)
    with ReviewServer(root, out, env=server_env()) as srv:
        assert _version(srv, keys[0])
        assert srv.stop() == 0
        lines = [ln for ln in srv.stderr.splitlines() if "is damaged" in ln]
    assert len(lines) == 1 and "continuing from its last good version history/" in lines[0], srv.stderr
    assert [p.read_bytes() for p in out.parent.glob("q_Acme_filled.damaged.*.xlsx")].count(broken) == 1
    assert _row(out, keys[0]).review == "Approved" and _logged(out) == log_before


def test_review_without_a_copy_that_opens_says_so_and_changes_nothing(tmp_path):
    from tests.review_app_helpers import server_env
    from tests.review_fixtures import make_output_workbook
    from tests.rows_helpers import cli

    (tmp_path / "ws").mkdir()
    out = make_output_workbook(tmp_path / "filled.xlsx")
    broken = corrupt(out)
    proc = cli(tmp_path / "ws", server_env(), "review", out, "--no-browser", "--json", timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"autofill: filled.xlsx is damaged ({damage(out)}); no copy in history/ opens: nothing was changed; "
        "`autofill run` with its questionnaire starts it again and keeps this file aside"]
    assert out.read_bytes() == broken and sorted(p.name for p in tmp_path.iterdir()) == ["filled.xlsx", "ws"]


def test_a_damaged_workbook_in_a_folder_under_review_is_recovered(tmp_path):
    """`autofill review FOLDER`: a damaged workbook with history copies is one of ours, recovered."""
    from tests.review_app_helpers import ReviewServer, server_env
    from tests.review_fixtures import make_output_workbook

    (tmp_path / "ws").mkdir()
    folder = tmp_path / "out"
    folder.mkdir()
    out = make_output_workbook(folder / "filled.xlsx")
    good = out.read_bytes()
    keep_previous(out)
    corrupt(out)
    with ReviewServer(tmp_path / "ws", folder, env=server_env()) as srv:
        assert srv.workbook == out
        assert srv.stop() == 0
    assert out.read_bytes() == good and "is damaged" in srv.stderr
    aside = list(folder.glob("filled.damaged.*.xlsx"))
    assert len(aside) == 1 and damage(aside[0])  # kept as it was; not listed as a workbook to review


def test_review_apply_recovers_too(tmp_path):
    """`autofill review --apply` (decisions waiting while the workbook was open in Excel) goes on from
    the last good version the same way, said in one line."""
    from tests.review_app_helpers import server_env
    from tests.review_fixtures import make_output_workbook
    from tests.rows_helpers import cli

    (tmp_path / "ws").mkdir()
    out = make_output_workbook(tmp_path / "filled.xlsx")
    good = out.read_bytes()
    keep_previous(out)
    broken = corrupt(out)
    proc = cli(tmp_path / "ws", server_env(), "review", out, "--apply", "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "is damaged" in ln]
    assert len(lines) == 1 and "continuing from its last good version history/" in lines[0], proc.stderr
    assert out.read_bytes() == good
    assert [p.read_bytes() for p in tmp_path.glob("filled.damaged.*.xlsx")] == [broken]
