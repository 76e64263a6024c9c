"""Gold keys in both formats, generated here; matching to questionnaire rows; clear errors."""

from __future__ import annotations

import json

import openpyxl
import pytest

from autofill.errors import InputError
from autofill.evaluate.gold import GoldEvidence, GoldPage, load_gold, normalise_number, parse_evidence, parse_pages
from autofill.records import QuestionRow

JSON_KEY = [
    {"no": 1, "question": "Does the company have a net zero target?", "gold_answer": "Yes. By 2050.",
     "answer_type": "yesno",
     "gold": [{"file": "Report.pdf", "page": 8, "evidence": "We target net zero by 2050."},
              {"file": "Report.pdf", "page": 8, "evidence": "Net zero includes offsets."},
              {"file": "Plan.pdf", "page": 3, "evidence": ""}]},
    {"no": "2", "question": "What were Scope 1 emissions?", "gold_answer": "9.5 Mt CO2-e", "answer_type": "number",
     "gold": []},
]


def write_xlsx(path, rows, title_rows=0):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Gold"
    for _ in range(title_rows):
        ws.append(["Answer key"])
    ws.append(["No.", "Question", "Gold answer", "Gold pages", "Gold evidence", "Answer type"])
    for r in rows:
        ws.append(r)
    wb.save(path)
    return path


def test_json_key(tmp_path):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(JSON_KEY))
    key = load_gold(path)
    first, second = key.items
    assert first.number == "1" and first.answer_type == "yesno"
    assert first.pages == [GoldPage("Report.pdf", 8), GoldPage("Plan.pdf", 3)]  # distinct, in order
    assert first.evidence == [GoldEvidence("We target net zero by 2050.", "Report.pdf", 8),
                              GoldEvidence("Net zero includes offsets.", "Report.pdf", 8)]
    assert second.number == "2" and second.pages == [] and second.answer_type == "number"


def test_xlsx_key_with_both_evidence_separators(tmp_path):
    path = write_xlsx(tmp_path / "gold.xlsx", [
        [1, "Does the company have a net zero target?", "Yes. By 2050.", "Report.pdf p.8; Plan.pdf p. 3",
         "[Report.pdf p.8] We target net zero by 2050.\n[Report.pdf p.8] Net zero includes offsets.", "yesno"],
        ["2.", "What were Scope 1 emissions?", "9.5 Mt CO2-e", "Report.pdf pp. 10-11",
         "Scope 1 was 9.5 Mt | Scope 2 was 6.3 Mt", ""],
        [None, None, None, None, None, None],
    ], title_rows=2)
    key = load_gold(path)
    assert [i.number for i in key.items] == ["1", "2"]
    assert key.items[0].pages == [GoldPage("Report.pdf", 8), GoldPage("Plan.pdf", 3)]
    assert key.items[0].evidence[1] == GoldEvidence("Net zero includes offsets.", "Report.pdf", 8)
    assert key.items[1].pages == [GoldPage("Report.pdf", 10), GoldPage("Report.pdf", 11)]
    assert [e.text for e in key.items[1].evidence] == ["Scope 1 was 9.5 Mt", "Scope 2 was 6.3 Mt"]
    assert key.items[1].answer_type == "text"  # no type given and no leading verdict
    assert key.items[0].answer_type == "yesno"


def test_answer_type_is_inferred_from_a_leading_verdict(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps([{"question": "Q?", "gold_answer": "Partially. Only shipping."}]))
    assert load_gold(path).items[0].answer_type == "yesno"


@pytest.mark.parametrize("content, message", [
    ("not json", "not valid JSON"),
    ('{"a": 1}', "list of questions"),
    ("[]", "no questions"),
    ('[{"gold_answer": "x"}]', "needs a question number"),
    ('[{"no": 1, "gold": [{"file": "A.pdf", "page": "eight"}]}]', "not a page number"),
    ('[{"no": 1, "gold": [{"file": "A.pdf", "page": 0}]}]', "1-based"),
    ('[{"no": 1, "gold": [{"page": 3}]}]', "needs a 'file'"),
    ('[{"no": 1, "answer_type": "essay"}]', "unknown answer type"),
    ('[{"no": 1}, {"no": "1."}]', "appears twice"),
])
def test_malformed_json_keys(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        load_gold(path)


def test_malformed_xlsx_and_missing_files(tmp_path):
    bad_pages = write_xlsx(tmp_path / "bad.xlsx", [[1, "Q?", "Yes", "Report.pdf page eight", "", "yesno"]])
    with pytest.raises(InputError, match=r"row 2: cannot read page reference"):
        load_gold(bad_pages)
    wb = openpyxl.Workbook()
    wb.active.append(["Something", "Else"])
    wb.save(tmp_path / "noheader.xlsx")
    with pytest.raises(InputError, match="no header row"):
        load_gold(tmp_path / "noheader.xlsx")
    (tmp_path / "fake.xlsx").write_text("not a workbook")
    with pytest.raises(InputError, match="not a readable"):
        load_gold(tmp_path / "fake.xlsx")
    with pytest.raises(InputError, match="not found"):
        load_gold(tmp_path / "missing.json")
    (tmp_path / "key.csv").write_text("a,b")
    with pytest.raises(InputError, match=".json or .xlsx"):
        load_gold(tmp_path / "key.csv")


def test_parsers():
    assert normalise_number(1.0) == "1" and normalise_number("Q01") == "1" and normalise_number("2.3.") == "2.3"
    assert parse_pages("A.pdf p.1\nB report.pdf, page 2; A.pdf p. 1", "x") == [GoldPage("A.pdf", 1),
                                                                              GoldPage("B report.pdf", 2)]
    assert parse_evidence("plain text without ref", "x") == [GoldEvidence("plain text without ref")]


def test_matching_by_number_then_text(tmp_path):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps([
        {"no": 1, "question": "Net zero target?"},
        {"no": 7, "question": "What were Scope 1 emissions?"},  # renumbered in the questionnaire: text matches
        {"question": "Is there a question without number?"},
        {"no": 99, "question": "Not in this questionnaire"},
    ]))
    rows = [QuestionRow("S", 5, "Does the company have a net zero target?", number="1"),
            QuestionRow("S", 6, "What were scope-1 emissions??", number="2"),
            QuestionRow("S", 7, "Is there a question WITHOUT number?")]
    pairs, unmatched = load_gold(path).match(rows)
    assert [(r.row, g.question) for r, g in pairs] == [
        (5, "Net zero target?"), (6, "What were Scope 1 emissions?"), (7, "Is there a question without number?")]
    assert [g.number for g in unmatched] == ["99"]


def test_duplicate_numbers_across_sheets_are_settled_by_text(tmp_path):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps([{"no": 1, "question": "Second sheet question"}]))
    rows = [QuestionRow("A", 2, "First sheet question", number="1"),
            QuestionRow("B", 2, "Second sheet question", number="1")]
    pairs, _ = load_gold(path).match(rows)
    assert [r.sheet for r, _ in pairs] == ["B"]


def test_a_renumbered_questionnaire_matches_on_exact_text(tmp_path):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps([{"no": 1, "question": "What were Scope 1 emissions?"},
                                {"no": 2, "question": "Does the company have a net zero target?"}]))
    rows = [QuestionRow("S", 5, "Does the company have a net zero target?", number="1"),
            QuestionRow("S", 6, "What were Scope 1 emissions?", number="2")]
    pairs, unmatched = load_gold(path).match(rows)
    assert [(r.row, g.number) for r, g in pairs] == [(5, "2"), (6, "1")] and not unmatched
