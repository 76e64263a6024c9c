"""The answer library reuses form values by datapoint and reporting period (library/forms.py, issue 45),
as users run it: the small VSME-like form (tests/forms_answer_helpers.py) filled by `autofill run` with
the loopback model, a waiting value approved on the review page (`autofill review`, real HTTP), then later
runs of the form for the same company: the same period reuses the approved value (`--reuse approved`,
no model call for it, its provenance in the Evidence sheet and on the review page) or shows it beside
the model's answer (reuse off); another period never reuses it, it only shows last period's value; an
Undo of the approval takes it out of the library; `forget` forgets it."""

from __future__ import annotations

import shutil

import openpyxl
import pytest

from autofill.library.forms import FormLibrary, period_key
from autofill.settings import Settings
from tests.forms_answer_helpers import ENV, build_form, build_report, responder
from tests.llm_server import LLMServer
from tests.review_app_helpers import ReviewServer, server_env
from tests.rows_helpers import cli, env_for, last_json
from tests.test_review_app_forms import SCOPE2, Client

COMPANY = "Acme Fabrication"
KEY = "GrossLocationBasedScope2GreenhouseGasEmissions"


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    """Acme's report ingested once through the CLI for the file (a loopback server's embeddings: the same
    hashed vectors from any of them); each test works in its own copy of that workspace."""
    root = tmp_path_factory.mktemp("library-forms")
    build_report(root / "reports")
    with LLMServer() as server:
        done = cli(root, env_for(server), "ingest", "--company", COMPANY, "reports")
    assert done.returncode == 0, done.stderr
    return root


def _copy(ingested, tmp_path) -> None:
    shutil.copytree(ingested, tmp_path, dirs_exist_ok=True)


def _run(tmp_path, env, out: str, year: str, *extra: str) -> dict:
    done = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "form.xlsx", "--year", year, "--json",
               "--out", out, *extra)
    assert done.returncode == 0, done.stderr
    return last_json(done)


def _evidence(path) -> dict[str, dict]:
    ws = openpyxl.load_workbook(path)["Evidence"]
    head = [c.value for c in ws[1]]
    out: dict[str, dict] = {}
    for r in ws.iter_rows(min_row=2, values_only=True):
        row = dict(zip(head, r))
        out.setdefault(row["Named range"], row)
    return out


def _scope2_prompts(server) -> int:
    return len(server.chat_requests("location-based Scope 2"))


def test_an_approved_form_value_is_reused_for_its_datapoint_and_period_only(ingested, tmp_path, llm_server):
    llm_server.responder = responder()
    _copy(ingested, tmp_path)
    build_form(tmp_path / "form.xlsx")
    env = env_for(llm_server)
    first = _run(tmp_path, env, "out", "2024")["output"]
    assert openpyxl.load_workbook(first)[ENV]["D6"].value is None  # Scope 2's invented 640 waits
    settings = Settings(workspace=tmp_path)
    assert FormLibrary(settings, COMPANY).values() == []

    # A reviewer approves the waiting datapoint with the value they checked: it goes into the library.
    with ReviewServer(tmp_path, first, env=server_env()) as server:
        assert Client(server).decide(SCOPE2, "Approve", answer="0.7 kt CO2e").status_code == 200
        assert server.stop() == 0, server.stderr
    [value] = FormLibrary(settings, COMPANY).values()
    assert (value.datapoint, value.period, value.value, value.unit) == (KEY, "2024", "700", "tCO2e")
    assert value.reviewer == "Ana" and value.source_cell == SCOPE2 and value.documents

    # The same company, form and period with reuse: written from the library, no model call for it.
    asked = _scope2_prompts(llm_server)
    again = _run(tmp_path, env, "again", "2024", "--reuse", "approved")
    assert _scope2_prompts(llm_server) == asked
    assert openpyxl.load_workbook(again["output"])[ENV]["D6"].value == 700
    row = _evidence(again["output"])[KEY]
    assert row["Status"] == "reused from the answer library" and row["Value"] == 700
    assert "approved" in row["Checks"] and "by Ana" in row["Checks"] and "for 2024" in row["Checks"], row
    with ReviewServer(tmp_path, again["output"], env=server_env()) as server:  # the review page shows where from
        page = Client(server).page()
        assert "reused from the answer library" in page and "by Ana" in page
        assert server.stop() == 0, server.stderr

    # Reuse off (the default): answered by the model, the approved value shown beside it, its difference a check.
    offered = _run(tmp_path, env, "offered", "2024")
    row = _evidence(offered["output"])[KEY]  # (its reply from the response cache: the same prompt as the first run's)
    assert row["Status"] == "waiting for approval" and "differs from the approved value 700 tCO2e" in row["Checks"]

    # Another period: never reused as a value, only shown as last period's.
    later = _run(tmp_path, env, "later", "2025", "--reuse", "approved")
    assert openpyxl.load_workbook(later["output"])[ENV]["D6"].value is None
    row = _evidence(later["output"])[KEY]
    assert row["Status"] != "reused from the answer library"
    assert "last period's value: 700 tCO2e" in row["Checks"] and "not reused" in row["Checks"], row

    # Undoing the approval takes the value out of the library again.
    with ReviewServer(tmp_path, first, env=server_env()) as server:
        assert Client(server).undo(SCOPE2).status_code == 200
        assert server.stop() == 0, server.stderr
    assert FormLibrary(settings, COMPANY).values() == []


def test_forget_forgets_the_form_values_and_keep_library_keeps_them(ingested, tmp_path, llm_server):
    from autofill.library.forms import FormValue

    llm_server.responder = responder()
    _copy(ingested, tmp_path)
    env = env_for(llm_server)
    settings = Settings(workspace=tmp_path)
    lib = FormLibrary(settings, COMPANY)
    assert lib.add([FormValue(KEY, period_key("FY2024"), "700", "2026-01-05", unit="tCO2e")], "2026-01-05") == 1
    kept = cli(tmp_path, env, "forget", "--company", COMPANY, "--keep-library", "--yes", "--json")
    assert kept.returncode == 0, kept.stderr
    assert [(v.datapoint, v.period) for v in lib.values()] == [(KEY, "2024")]
    assert cli(tmp_path, env, "ingest", "--company", COMPANY, "reports").returncode == 0
    gone = cli(tmp_path, env, "forget", "--company", COMPANY, "--yes", "--json")
    assert gone.returncode == 0, gone.stderr
    assert "1 entries" in gone.stdout or "(1 entries)" in gone.stdout, gone.stdout
    assert lib.values() == []
