"""The trust layer end to end: `autofill run` against the loopback OpenAI server, with a model that
states a figure its cited passage does not hold for one row. That row is never Ready and its Checks
name the figure; rows whose figures are in their cited passages are not flagged for them. Tier and
Checks land in the workbook (tier cell coloured), the summary counts, --json and Run info; with
verify.llm one more call per row is made, cached and costed under "verify"."""

from __future__ import annotations

import json

import openpyxl
import pytest

from autofill.answer.pipeline import run_questionnaire
from autofill.states import Tier
from tests.answer_helpers import COMPANY, FACTS, MARKERS, answer_reply, fact_for, make_questionnaire, \
    copied_workspace, read_output
from tests.llm_server import by_marker, last_user_text
from tests.portfolio_helpers import LOOPBACK_PRICES
from tests.test_pipeline_openai import providers, settings_for

WRONG = FACTS[2]  # renewable share: the passage says 46%
WRONG_ANSWER = "52% in FY2024."
VERIFY_MARKER = "Check an answer to a sustainability questionnaire"


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    settings, emb = copied_workspace(root)
    return root, emb, make_questionnaire(root / "questionnaire.xlsx")


def lying_answer(req):
    reply = answer_reply(req)
    if fact_for(last_user_text(req)) is WRONG:
        reply = reply.replace(WRONG.answer, WRONG_ANSWER)
    return reply


def verify_reply(req):
    text = last_user_text(req)
    verdict = "unsupported" if WRONG_ANSWER in text else "supported"
    return "Here you go:\n```json\n" + json.dumps({"claims": [{"claim": "the answer", "verdict": verdict}]}) + "\n```"


def run(ingested, llm_server, tmp_path, out="out", **options):
    root, emb, questionnaire = ingested
    s = settings_for(root, llm_server, tmp_path)
    s.cost.prices = dict(LOOPBACK_PRICES)  # verify calls are costed: the user priced the loopback model
    for section, values in options.items():
        for k, v in values.items():
            setattr(getattr(s, section), k, v)
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path / out, providers=providers(s, emb, tmp_path))
    return report, read_output(report.output)


def test_a_figure_absent_from_the_cited_passage_is_never_ready(ingested, llm_server, tmp_path):
    llm_server.responder = by_marker({**MARKERS, "single JSON object": lying_answer})
    report, out = run(ingested, llm_server, tmp_path, run={"reporting_year": 2024})

    wrong = out["rows"][WRONG.question]
    assert wrong["Answer"] == WRONG_ANSWER
    assert wrong["Tier"] == Tier.NEEDS_WORK.label
    assert "52% not in cited passages" in wrong["Checks"]
    for f in FACTS:
        if f is not WRONG:
            row = out["rows"][f.question]
            assert row["Tier"] == Tier.READY.label, (f.question, row["Checks"])
            assert not row["Checks"]

    # the tier cell is coloured, nothing else of the row is
    wb = openpyxl.load_workbook(report.output)
    ws = wb["Questionnaire"]
    header = next(r for r in range(1, 10) if ws.cell(row=r, column=3).value == "Question")
    cols = {ws.cell(row=header, column=c).value: c for c in range(1, ws.max_column + 1)}
    fills = {}
    for r in range(header + 1, ws.max_row + 1):
        if ws.cell(row=r, column=3).value:
            fills[ws.cell(row=r, column=3).value] = ws.cell(row=r, column=cols["Tier"]).fill.fgColor.rgb[-6:]
            assert ws.cell(row=r, column=cols["Checks"]).fill.fgColor.rgb in ("00000000", None) or \
                ws.cell(row=r, column=cols["Checks"]).fill.fill_type is None
    assert fills[WRONG.question] == Tier.NEEDS_WORK.fill
    assert fills[FACTS[0].question] == Tier.READY.fill

    n = len(FACTS)
    assert report.to_json()["tiers"] == {"ready": n - 1, "check": 0, "needs_work": 1, "approved": 0}
    assert out["info"]["tier ready"] == n - 1 and out["info"]["tier needs work"] == 1
    assert out["info"]["reporting year"] == 2024
    from autofill.summaries import run_summary
    assert f"Tiers: {n - 1} Ready, 0 Check, 1 Needs work" in run_summary(report, COMPANY)


def test_a_stated_year_before_the_reporting_year_is_check(ingested, llm_server, tmp_path):
    llm_server.responder = by_marker(MARKERS)
    report, out = run(ingested, llm_server, tmp_path, run={"reporting_year": 2025})
    row = out["rows"][WRONG.question]  # "46% in FY2024."
    assert row["Tier"] == Tier.CHECK.label
    assert row["Checks"] == "states FY2024, not the reporting year 2025"


def test_model_verification_is_one_cached_costed_call_per_row(ingested, llm_server, tmp_path):
    llm_server.responder = by_marker({**MARKERS, "single JSON object": lying_answer, VERIFY_MARKER: verify_reply})
    report, out = run(ingested, llm_server, tmp_path, verify={"llm": True})
    n = len(FACTS)
    assert len(llm_server.chat_requests(VERIFY_MARKER)) == n
    assert report.usage["verify"].calls == n and report.usage["verify"].cost_usd > 0
    assert out["info"]["verify calls"] == n and out["info"]["model verification"] == "gpt-4o-mini"
    assert "model check: not supported: the answer" in out["rows"][WRONG.question]["Checks"]
    assert out["rows"][FACTS[0].question]["Tier"] == Tier.READY.label

    before = len(llm_server.chat_requests(VERIFY_MARKER))
    again, _ = run(ingested, llm_server, tmp_path, out="out2", verify={"llm": True})
    assert len(llm_server.chat_requests(VERIFY_MARKER)) == before  # served from the cache
    assert again.usage["verify"].cached_calls == n
