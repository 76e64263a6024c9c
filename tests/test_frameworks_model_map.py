"""The model's help with framework datapoints in `run` (frameworks/model_map.py, issue 46): with
`run.map_with_model` and a model, only the rows the offline rules leave unsure are asked about (one call
each, stage "datapoints"), their `Framework datapoints` cell written from the model's pick with the contrast
veto still holding; without the setting no such call is made. Through the real CLI against the loopback
OpenAI-compatible server (tests/llm_server.py), as a test of the plumbing, not of a model's judgement."""

from __future__ import annotations

from autofill.frameworks.mapping import Mapping, Match
from autofill.frameworks.model_map import UNSURE_MARGIN, unsure
from tests.answer_helpers import read_output
from tests.answer_helpers import passages_in
from tests.llm_server import last_user_text, message_text
from tests.rows_helpers import answer_first_figure, cli, company_reports, env_for, last_json
from tests.loopback import by_marker
from tests.workbook_builders import build_questionnaire

MARKER = "Decide which of the listed datapoints"
RENEWABLE = "What share of electricity consumption was renewable in FY2024?"  # the rules are sure
EMPLOYEES = "How many employees did the company have at the end of FY2024?"  # the rules: 0.5, under the cell's 0.6
SUPPLIERS = "How does the company work with its packaging suppliers?"  # the rules: nothing


def test_unsure_is_weak_or_a_near_tie_and_never_a_quoted_code():
    assert unsure(Mapping(), 0.6)
    assert unsure(Mapping((Match("a", 0.55, "rules"),)), 0.6)
    assert unsure(Mapping((Match("a", 0.8, "rules"), Match("b", 0.8 - UNSURE_MARGIN / 2, "rules"))), 0.6)
    assert not unsure(Mapping((Match("a", 0.8, "rules"), Match("b", 0.6, "rules"))), 0.6)
    assert not unsure(Mapping((Match("a", 1.0, "quoted", "GRI 305-1"), Match("b", 0.99, "rules"))), 0.6)


def _datapoints_reply(req):
    question = message_text(req).split("<question>")[1].split("</question>")[0]
    if "packaging suppliers" in question:
        return '{"datapoints": ["conduct.suppliers"]}'
    if "employees" in question:  # a pick across the Scope contrast would be vetoed; this one is not
        return '```json\n{"datapoints": ["workforce.characteristics"]}\n```'
    return '{"datapoints": ["ghg.scope1"]}'  # never asked: the renewable row is sure


def test_run_asks_the_model_about_the_rows_the_rules_leave_unsure(tmp_path, llm_server):
    root = tmp_path / "ws"
    root.mkdir()
    company_reports(root / "reports", "Acme", 42, 1200)
    build_questionnaire(root / "q.xlsx", extras=False,
                        questions=[("Climate", RENEWABLE, "Percentage", False), ("People", EMPLOYEES, "Number", False),
                                   ("Suppliers", SUPPLIERS, "Text", False)])
    llm_server.responder = by_marker({MARKER: _datapoints_reply, "Write a short passage": "A passage.",
                                      "Rank all": lambda r: " > ".join(f"[{n}]" for n, *_ in passages_in(last_user_text(r))),
                                      "single JSON object": answer_first_figure}, default="ok")
    env = env_for(llm_server)
    proc = cli(root, env, "ingest", "--company", "Acme", "reports", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]

    proc = cli(root, {**env, "AUTOFILL_RUN__MAP_WITH_MODEL": "true"}, "run", "--company", "Acme",
               "--questionnaire", "q.xlsx", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    asked = [message_text(r.json) for r in llm_server.chat_requests() if MARKER in message_text(r.json)]
    assert len(asked) == 2 and not any(RENEWABLE in a for a in asked)
    data = last_json(proc)
    assert data["stages"]["datapoints"]["calls"] == 2  # the run's usage counts them under their own stage
    rows = read_output(data["output"])["rows"]
    assert rows[SUPPLIERS]["Framework datapoints"].startswith("Supplier relationships")
    assert "(0.90, model)" in rows[SUPPLIERS]["Framework datapoints"]
    assert "(0.90, model)" in rows[EMPLOYEES]["Framework datapoints"]
    assert "model" not in rows[RENEWABLE]["Framework datapoints"]

    # Without the setting: the offline mapping only, no datapoint call.
    before = len(llm_server.chat_requests())
    proc = cli(root, env, "run", "--company", "Acme", "--questionnaire", "q.xlsx", "--fresh", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not any(MARKER in message_text(r.json) for r in llm_server.chat_requests()[before:])
    rows = read_output(last_json(proc)["output"])["rows"]
    assert not rows[SUPPLIERS]["Framework datapoints"]
