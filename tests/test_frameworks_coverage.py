"""Every row tagged (autofill/frameworks/coverage.py, commands.py): `autofill inspect` lists each row's
datapoints and the coverage by framework, in text and JSON, offline or with the model's help (real
OpenAI SDK against the loopback server); the filled workbook carries them in a column autofill adds,
never over a customer's column."""

from __future__ import annotations

import json

import openpyxl

from autofill.frameworks.coverage import cell_labels
from autofill.records import Answer, RowResult
from autofill.settings import Settings
from autofill.workbook.layout import read_questions
from autofill.workbook.writeback import write_results
from tests.llm_server import message_text
from tests.race_helpers import cli
from tests.workbook_builders import QUESTIONS, build_questionnaire

ROWS = QUESTIONS + [
    ("Emissions", "GRI 305-2-b", "Number with unit", False),
    ("Other", "What is your credit rating?", "Text", False),
]


def test_inspect_lists_each_rows_datapoints_and_the_coverage(tmp_path):
    q = build_questionnaire(tmp_path / "q.xlsx", questions=ROWS)
    done = cli(["--workspace", str(tmp_path / "ws"), "inspect", str(q)], timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Framework datapoints (offline: quoted codes and wording rules):" in out
    scope1 = next(l for l in out.splitlines() if "Gross Scope 1 GHG emissions (" in l)
    assert "ESRS E1-6 44(a)" in scope1 and "GRI 305-1" in scope1 and "IFRS S2 29(a)(i)(1)" in scope1
    assert "Gross Scope 2 GHG emissions, market-based (1.00, quoted): ESRS E1-6 49(b)" in out
    assert "Coverage by framework" in out and "  GRI: " in out
    assert "rows mapped to no datapoint (1):" in out

    done = cli(["--workspace", str(tmp_path / "ws"), "inspect", str(q), "--json"], timeout=120)
    data = json.loads(done.stdout)["datapoints"]
    by_row = {r["row"]: r["datapoints"] for r in data["rows"]}
    assert len(by_row) == len(ROWS)
    scope1_row = next(r for r, d in by_row.items() if d and d[0]["concept"] == "ghg.scope1")
    assert "GRI 305-1" in by_row[scope1_row][0]["requirements"]
    assert "305-1" in data["coverage"]["GRI"]["asked"] and "305-6" in data["coverage"]["GRI"]["not_asked"]
    assert len(data["unmapped_rows"]) == 1


def test_inspect_with_the_models_help(tmp_path, llm_server):
    def reply(req):
        text = message_text(req)
        if "<question>" not in text:
            return "{}"
        text = text.split("<question>")[1].split("</question>")[0]
        if "Scope 1 emissions" in text:  # a wrong pick across scopes: the contrast veto overrules it
            return '{"datapoints": ["ghg.scope2-market", "ghg.scope1"]}'
        return '```json\n{"datapoints": ["gov.incentives"]}\n```' if "remuneration" in text else '{"datapoints": []}'

    llm_server.responder = reply
    q = build_questionnaire(tmp_path / "q.xlsx", questions=ROWS)
    env = {"OPENAI_BASE_URL": llm_server.base_url, "OPENAI_API_KEY": "sk-test", "AUTOFILL_LLM__MODEL": "gpt-4o-mini",
           "AUTOFILL_LLM__CACHE": "false"}
    done = cli(["--workspace", str(tmp_path / "ws"), "inspect", str(q), "--json", "--map-with-model"], env=env,
               timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)["datapoints"]
    assert data["how"] == "with model gpt-4o-mini"
    picks = {r["row"]: [(d["concept"], d["how"]) for d in r["datapoints"]] for r in data["rows"]}
    assert [("ghg.scope1", "model")] in picks.values()
    assert [("gov.incentives", "model")] in picks.values()
    assert [("ghg.scope2-market", "quoted")] in picks.values()  # GRI 305-2-b kept although the model said none
    prompts = llm_server.chat_requests()
    assert len(prompts) == len(ROWS) and "<question>" in message_text(prompts[0].json)


def _customer_sheet_with_a_column_where_ours_would_go(path):
    build_questionnaire(path, questions=ROWS)
    wb = openpyxl.load_workbook(path)
    ws = wb["Questionnaire"]
    ws["Q3"] = "Datapoints"  # the customer's own column, just where autofill's would go
    for r in range(4, 14):
        ws[f"Q{r}"] = f"customer {r}"
    wb.save(path)
    return path


def test_the_workbook_carries_the_datapoints_never_over_a_customers_column(tmp_path):
    src = _customer_sheet_with_a_column_where_ours_would_go(tmp_path / "q.xlsx")
    layout, rows = read_questions(Settings(), src)
    sheet = layout.sheets[0]
    ours = sheet.letter("datapoints")
    assert ours not in "ABCDEFGQ" and sheet.columns["datapoints"].header == "Framework datapoints"
    out = write_results(Settings(), src, layout, [RowResult(q, Answer(answer="x")) for q in rows],
                        tmp_path / "out.xlsx", {})
    ws = openpyxl.load_workbook(out)["Questionnaire"]
    assert [ws[f"Q{r}"].value for r in range(3, 14)] == ["Datapoints"] + [f"customer {r}" for r in range(4, 14)]
    assert ws[f"{ours}3"].value == "Framework datapoints"
    cells = {q.question: ws[f"{ours}{q.row}"].value for q in rows}
    assert "GRI 305-1" in cells["What were Scope 1 emissions in FY2024?"]
    assert cell_labels(cells["What were Scope 1 emissions in FY2024?"]) == ["Gross Scope 1 GHG emissions"]
    assert cells["What is your credit rating?"] is None
    # the output read again: our column is recognised as ours, not a customer's
    layout2, _ = read_questions(Settings(), out)
    assert layout2.sheets[0].letter("datapoints") == ours and not layout2.sheets[0].columns["datapoints"].added
