"""forms/answer.py and forms/run.py: a small named-range form filled from a generated report, offline
(evidence and candidate values per datapoint, nothing written) and with the loopback model (values of the
right type in the form's units; a figure not on the cited pages waits; formulas, names and drop-downs kept)."""

from __future__ import annotations

import re
import zipfile

import pytest

from autofill.forms.candidates import candidates
from autofill.forms.run import run_form
from autofill.forms.units import parse_unit
from autofill.providers.base import Providers
from autofill.records import Passage
from autofill.settings import Settings
from tests.fakes import FakeEmbedder
from tests.forms_answer_helpers import ENV, FORMULA, build_form, build_report, responder
from tests.form_builders import evidence_rows

COMPANY = "Acme Fabrication"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    from autofill.ingest.pipeline import ingest_paths

    root = tmp_path_factory.mktemp("forms")
    settings = Settings(workspace=root)
    emb = FakeEmbedder()
    report = ingest_paths(settings, COMPANY, [build_report(root / "docs")], embedder=emb)
    assert report.count("failed") == 0, report.files
    form_path, form = build_form(root / "vsme-small.xlsx")
    return root, emb, form_path, form


def _settings(root):
    s = Settings(workspace=root)
    s.retrieval.second_stage = "none"
    return s


def test_candidates_hold_figures_in_the_forms_unit_with_their_year():
    text = ("| Energy | FY2024 (GJ) | FY2023 (GJ) |\n| --- | --- | --- |\n| Total energy consumption | 4,500 | 5,000 |\n"
            "Water use fell. In 2024 total water withdrawal was 12.5 megalitres.")
    p = Passage("c1", "r.pdf", 3, 3, "", text, rank=1)
    energy = candidates("Total energy consumption in MWh", parse_unit("MWh"), [p], 2024)
    assert [(round(c.value, 2), c.year) for c in energy[:2]] == [(1250.0, 2024), (1388.89, 2023)]
    water = candidates("Total water withdrawal (m3)", parse_unit("m3"), [p], 2024)
    assert [(c.value, c.year) for c in water] == [(12500.0, 2024)]
    assert "12.5 megalitres" in water[0].quote and water[0].page == 3


def test_offline_run_ties_each_datapoint_to_cited_pages_and_writes_nothing(workspace, tmp_path):
    root, emb, form_path, form = workspace
    before = form_path.read_bytes()
    report = run_form(_settings(root), COMPANY, form_path, out_dir=tmp_path, providers=Providers(embedder=emb),
                      form=form)
    assert form_path.read_bytes() == before  # the input is only read
    assert report.evidence_only and report.counts["draft"] == 6 and report.counts["written"] == 0
    wb, rows = evidence_rows(report.output)
    assert all(wb[ENV][ref].value is None for ref in ("D5", "D6", "D7", "D8", "D9", "D10"))
    by_key = {}
    for r in rows:
        by_key.setdefault(r["Named range"], []).append(r)
    assert set(by_key) == {"GrossScope1GreenhouseGasEmissions", "GrossLocationBasedScope2GreenhouseGasEmissions",
                           "TotalEnergyConsumption", "TotalAmountOfWaterWithdrawnFromAllSites", "HasTransitionPlan",
                           "TypeOfNumberOfEmployees"}
    scope1 = by_key["GrossScope1GreenhouseGasEmissions"]
    assert scope1[0]["Cell"] == f"{ENV}!D5" and scope1[0]["Label"].startswith("Gross Scope 1")
    assert all(r["Status"] == "draft" for r in rows)
    assert any(r["File"] == "Acme report 2024.pdf" and r["Page"] == 2 for r in scope1)
    drafts = {(r["Named range"], r["Value"]) for r in rows if r["Rank"] == "candidate"}
    assert ("GrossScope1GreenhouseGasEmissions", 1250) in drafts
    assert ("TotalEnergyConsumption", 1250) in drafts
    assert ("TotalAmountOfWaterWithdrawnFromAllSites", 12500) in drafts


def test_loopback_model_writes_typed_values_and_keeps_the_forms_machinery(workspace, tmp_path, llm_server):
    root, emb, form_path, form = workspace
    llm_server.responder = responder()
    s = _settings(root)
    s.llm.provider, s.llm.base_url, s.llm.api_key, s.llm.model = "openai", llm_server.base_url, "sk-test", "gpt-4o-mini"
    s.llm.cache = False
    s.retrieval.mode, s.retrieval.reranker = "hybrid", "none"
    from autofill.providers.factory import make_chat

    report = run_form(s, COMPANY, form_path, out_dir=tmp_path, providers=Providers(embedder=emb, chat=make_chat(s)),
                      form=form)
    assert report.period == "2024"
    assert report.counts["written"] == 5 and report.counts["waiting for approval"] == 1, report.counts
    wb, rows = evidence_rows(report.output)
    ws = wb[ENV]
    assert ws["D5"].value == 1250 and isinstance(ws["D5"].value, (int, float))  # 1.25 kt CO2e in tCO2e
    assert ws["D7"].value == 1250  # 4,500 GJ in MWh
    assert ws["D8"].value == 12500  # 12.5 megalitres in m3
    assert ws["D9"].value == "YES" and ws["D10"].value == "Headcount"  # the drop-downs' spelling
    assert ws["D6"].value is None  # 640 t is on no cited page: it waits
    waiting = [r for r in rows if r["Named range"] == "GrossLocationBasedScope2GreenhouseGasEmissions"]
    assert waiting[0]["Status"] == "waiting for approval" and "640 t not in cited passages" in waiting[0]["Checks"]
    assert any(r["Value"] == 640 and r["Cited"] == "yes" for r in waiting)
    # Formulas, named ranges and drop-downs of the input are all there.
    assert ws[FORMULA[1]].value == FORMULA[2]
    with zipfile.ZipFile(form_path) as zin, zipfile.ZipFile(report.output) as zout:
        names_in = re.findall(r"<definedName [^>]*>[^<]*</definedName>", zin.read("xl/workbook.xml").decode())
        names_out = re.findall(r"<definedName [^>]*>[^<]*</definedName>", zout.read("xl/workbook.xml").decode())
        assert names_in and names_in == names_out
        sheet = "xl/worksheets/sheet2.xml"
        dv_in = re.findall(r"<dataValidations.*?</dataValidations>", zin.read(sheet).decode(), re.S)
        dv_out = re.findall(r"<dataValidations.*?</dataValidations>", zout.read(sheet).decode(), re.S)
        assert dv_in and dv_in == dv_out
        for name in zin.namelist():
            if name not in (sheet, "xl/workbook.xml", "xl/_rels/workbook.xml.rels", "[Content_Types].xml"):
                assert zin.read(name) == zout.read(name) or name.startswith("xl/calcChain"), name


def test_a_figure_under_its_tables_unit_passes_and_one_on_no_cited_page_fails():
    from autofill.forms.answer import figure_checks
    from autofill.forms.values import TypedValue

    table = Passage("c1", "r.pdf", 2, 2, "", "Emissions FY2024 (kt CO2e) FY2023 (kt CO2e)\nScope 1 16.628 20.450", rank=1)
    other = Passage("c2", "r.pdf", 7, 7, "", "Scope 2 emissions were 21,184 t in 2024.", rank=2)
    t = parse_unit("tCO2e")
    assert figure_checks(TypedValue(16628.0, "16.628"), t, [table], [other])[0].passed
    failed = figure_checks(TypedValue(21184.0, "21184"), t, [table], [other])[0]
    assert not failed.passed and "found only in uncited r.pdf p. 7" in failed.reason
    summed = figure_checks(TypedValue(37812.0, "37,812"), t, [table, other], [], ["16.628 kt", "21,184 t"])[0]
    assert summed.passed and "each in the cited passages" in summed.reason
    wrong_sum = figure_checks(TypedValue(40000.0, "40,000"), t, [table, other], [], ["16.628 kt", "21,184 t"])[0]
    assert not wrong_sum.passed and "add up to" in wrong_sum.reason


def test_a_gated_datapoint_waits_when_its_gate_is_answered_closed():
    from autofill.forms.answer import Decision, FormAnswer
    from autofill.forms.model import Datapoint, DatapointKind, FormCell, Gate
    from autofill.forms.run import gated
    from autofill.forms.values import TypedValue
    from autofill.records import RowResult

    def answer(key, kind, value, gate=None, decision=Decision.WRITTEN):
        dp = Datapoint(key, (FormCell("S", "C1"),), key, kind=kind, gate=gate)
        return FormAnswer(dp, RowResult(question=None, answer=None), decision, TypedValue(value, str(value)))

    policy = Gate("HasPolicy")
    closed = gated([answer("HasPolicy", DatapointKind.BOOLEAN, False),
                    answer("Describe", DatapointKind.TEXT, "A policy.", policy)])
    assert closed[1].decision is Decision.WAITING and "HasPolicy is answered no" in closed[1].checks[-1].reason
    unanswered = gated([answer("HasPolicy", DatapointKind.BOOLEAN, True, decision=Decision.WAITING),
                        answer("Describe", DatapointKind.TEXT, "A policy.", policy)])
    assert unanswered[1].decision is Decision.WRITTEN and unanswered[1].checks[-1].severity.value == "soft"
    opened = gated([answer("HasPolicy", DatapointKind.BOOLEAN, True),
                    answer("Describe", DatapointKind.TEXT, "A policy.", policy)])
    assert opened[1].decision is Decision.WRITTEN


def test_a_large_form_with_a_model_asks_for_consent_first(workspace):
    from autofill.portfolio.form_cost import estimate_run
    from autofill.portfolio.plan import consent_reason

    root, _, _, form = workspace
    s = _settings(root)
    assert estimate_run(s, form, COMPANY) is None  # no model: nothing to pay, nothing asked
    s.llm.provider, s.llm.api_key, s.llm.model = "openai", "sk-test", "gpt-4o-mini"
    est = estimate_run(s, form, COMPANY)
    s.run.confirm_rows = 10
    assert consent_reason(s, est.rows, est.cost_usd, est.model, "datapoints") == ""
    s.run.confirm_rows = 3
    assert "6 datapoints to answer (over 3)" in consent_reason(s, est.rows, est.cost_usd, est.model, "datapoints")


def test_a_value_must_be_for_the_reporting_year():
    from autofill.forms.answer import year_checks

    this_year = Passage("c1", "r.pdf", 2, 2, "", "In FY2024 Scope 1 emissions were 1.25 kt CO2e.", rank=1)
    last_year = Passage("c2", "old.pdf", 5, 5, "", "Scope 1 emissions were 1.31 kt CO2e.", rank=2)
    assert year_checks(2024, [this_year], "FY2024", {})[0].passed
    said = year_checks(2024, [this_year], "2023", {})[0]
    assert not said.passed and "not the reporting year 2024" in said.reason
    assert not year_checks(2024, [last_year], "", {"old.pdf": "FY2023"})[0].passed
    assert year_checks(2024, [last_year], "", {"old.pdf": "FY2024"})[0].passed  # the document is for 2024
    assert year_checks(None, [last_year], "2019", {}) == []
