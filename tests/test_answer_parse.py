"""The answer parser on messy model output: fences, text around the JSON, Python-style dicts,
citations in every shape models produce, citations outside the evidence, unparseable replies."""

from __future__ import annotations

import pytest

from autofill.answer.generate import UNPARSED, parse_answer
from autofill.search.hyde import parse_hyde
from autofill.records import Citation, Passage


def ctx() -> list[Passage]:
    return [
        Passage("a", "Report 2024.pdf", 2, 2, "Targets", "net zero by 2050"),
        Passage("b", "Report 2024.pdf", 3, 4, "Performance", "table"),
        Passage("c", "Plan.pdf", 8, 8, "", "goal"),
    ]


def test_clean_json():
    a = parse_answer('{"reasoning": "Passage 1 says so.", "answer": "Yes, by 2050.", "citations": [1, 3],'
                     ' "confidence": "high"}', ctx())
    assert a.answer == "Yes, by 2050."
    assert a.reasoning == "Passage 1 says so."
    assert a.citations == [Citation("Report 2024.pdf", 2), Citation("Plan.pdf", 8)]
    assert a.cited_passages == [1, 3]
    assert a.confidence == "high"
    assert a.status == "Answered" and not a.flags


def test_fences_and_text_around():
    text = ('Let me think. Passage 2 has the table.\n```json\n{"reasoning": "", "answer": "1,120 kt",'
            ' "citations": ["[2]"], "confidence": "Medium"}\n```\nHope this helps!')
    a = parse_answer(text, ctx())
    assert a.answer == "1,120 kt"
    assert a.reasoning.startswith("Let me think.")  # reasoning outside the JSON is kept
    assert a.citations == [Citation("Report 2024.pdf", 3)]
    assert a.confidence == "medium"


def test_single_quotes_and_trailing_commas():
    a = parse_answer("{'reasoning': 'ok', 'answer': 'No', 'citations': ['1',], 'confidence': 'low',}", ctx())
    assert a.answer == "No" and a.cited_passages == [1] and a.confidence == "low"


def test_citations_as_page_labels_and_order_kept():
    a = parse_answer('{"answer": "Yes", "citations": ["Plan.pdf p. 8", "Report 2024.pdf p. 4", "3", 1]}', ctx())
    # most relevant first, as the model ordered them; p. 4 lies inside passage 2 (pp. 3-4)
    assert a.citations == [Citation("Plan.pdf", 8), Citation("Report 2024.pdf", 4), Citation("Report 2024.pdf", 2)]
    assert a.cited_passages == [3, 2, 1]


def test_citation_outside_evidence_is_dropped_and_flagged():
    a = parse_answer('{"answer": "Yes", "citations": [1, 7, "Report 2024.pdf p. 99", 1]}', ctx())
    assert a.citations == [Citation("Report 2024.pdf", 2)]  # duplicate 1 kept once
    assert a.status == "Answered; dropped 2 citations not in the evidence"
    assert len(a.flags) == 2 and "[7]" in a.flags[0] and "p. 99" in a.flags[1]


def test_one_dropped_citation_status_wording():
    a = parse_answer('{"answer": "Yes", "citations": [4]}', ctx())
    assert a.status == "Answered; dropped 1 citation not in the evidence; no valid citation"
    assert a.citations == []


def test_citations_as_a_string():
    a = parse_answer('{"answer": "Yes", "citations": "[1], [3]"}', ctx())
    assert a.cited_passages == [1, 3]


def test_unparseable_keeps_raw_text():
    raw = "I think the answer is yes because of passage 2."
    a = parse_answer(raw, ctx())
    assert a.status == UNPARSED
    assert a.answer == ""
    assert a.reasoning == raw and a.raw == raw


def test_json_without_answer_is_unparsed():
    a = parse_answer('{"reasoning": "thinking", "citations": [1]}', ctx())
    assert a.status == UNPARSED and "thinking" in a.reasoning


def test_truncated_json_is_closed():
    a = parse_answer('{"reasoning": "r", "answer": "Yes", "citations": [1]', ctx())
    assert a.answer == "Yes" and a.cited_passages == [1]


def test_braces_inside_strings():
    a = parse_answer('{"reasoning": "the {table} says", "answer": "Partially {see}", "citations": [2]}', ctx())
    assert a.answer == "Partially {see}"


def test_allowed_values_spelling_normalised():
    a = parse_answer('{"answer": "yes - by 2050", "citations": [1]}', ctx(), ["Yes", "No", "Not disclosed"])
    assert a.answer == "Yes - by 2050" and a.status == "Answered"
    b = parse_answer('{"answer": "not disclosed.", "citations": []}', ctx(), ["Yes", "No", "Not disclosed"])
    assert b.answer == "Not disclosed." and b.status == "Answered"
    # "No" is not a prefix of the word "Nothing"; a non-matching answer is left for the writer to judge
    c = parse_answer('{"answer": "nothing", "citations": []}', ctx(), ["No"])
    assert c.answer == "nothing" and c.status == "Answered; no valid citation"


def test_hyde_parser_strips_preambles_and_fences():
    assert parse_hyde('Sure! Here is a hypothetical passage:\n\n"We target net zero by 2050."') == \
        "We target net zero by 2050."
    assert parse_hyde("```\n**Climate targets**\nWe cut emissions 30%.\n```") == "We cut emissions 30%."
    assert parse_hyde("This report covers our targets.\nWe cut 30%.") == "This report covers our targets.\nWe cut 30%."
    assert parse_hyde("Passage:\nWe cut 30%.") == "We cut 30%."
    assert parse_hyde("") == ""


def test_evidence_only_quotes_sentences_and_table_rows_with_pages():
    from autofill.answer.evidence_only import PREFIX, STATUS, evidence_answer, split_units
    from autofill.records import QuestionRow

    table = ("Greenhouse gas emissions\n\n| Year | Scope 1 (kt) | Scope 2 (kt) |\n|---|---|---|\n"
             "| FY2023 | 1,210 | 610 |\n| FY2024 | 1,120 | 540 |\n\nEmissions fell as a smelter switched power.")
    assert split_units(table) == ["FY2023, Scope 1 (kt): 1,210; Scope 2 (kt): 610",
                                  "FY2024, Scope 1 (kt): 1,120; Scope 2 (kt): 540",
                                  "Emissions fell as a smelter switched power."]  # the bare heading is not quotable
    passages = [Passage("a", "R.pdf", 5, 5, "Energy", "Renewable electricity made up 46% of consumption in FY2024."),
                Passage("b", "R.pdf", 3, 4, "Performance > Greenhouse gas emissions", table)]
    row = QuestionRow("S", 9, "What were Scope 1 emissions in FY2024?")
    a = evidence_answer(row, passages, locate=lambda p, text: 4 if "1,120" in text else p.page_start)
    assert a.status == STATUS and a.confidence == ""
    assert a.answer == ""  # a draft is never an answer: the quotes go to the reasoning
    assert a.reasoning.startswith(PREFIX)
    assert a.reasoning.index("FY2024, Scope 1 (kt): 1,120") < a.reasoning.index("46%")  # best match first
    assert "(R.pdf p. 4)" in a.reasoning  # the located page, not the passage's first page
    assert a.citations[0] == Citation("R.pdf", 4) and a.cited_passages[0] == 2
    assert "No language model" in a.reasoning


def test_evidence_only_without_matching_text():
    from autofill.answer.evidence_only import STATUS, evidence_answer
    from autofill.records import QuestionRow

    a = evidence_answer(QuestionRow("S", 1, "Zyxqor?"), [Passage("a", "R.pdf", 1, 1, "", "Nothing relevant here at all.")])
    assert a.status == STATUS and a.answer == "" and a.citations == [] and "reviewer must answer" in a.reasoning


# ---- what models actually write: key variants, empty replies, answers without a citation


@pytest.mark.parametrize("reasoning_key", ["reasoning", "thought", "Thought", "thoughts", "RATIONALE", "analysis",
                                           "Explanation"])
@pytest.mark.parametrize("citations_key", ["citations", "sources", "Sources", "references", "evidence"])
def test_key_variants_are_read_case_insensitively(reasoning_key, citations_key):
    import json as _json

    reply = _json.dumps({reasoning_key: "Passage 2 states the target.", "Answer": "Yes, by 2050",
                         citations_key: [2]})
    a = parse_answer(reply, ctx())
    assert (a.answer, a.reasoning, a.cited_passages, a.status) == ("Yes, by 2050", "Passage 2 states the target.",
                                                                   [2], "Answered")


def test_the_seed_studys_thought_answer_format_and_final_answer():
    a = parse_answer('{"Thought": "p. 3 names the committee", "Answer": "The Board Sustainability Committee", '
                     '"Sources": ["R.pdf p. 3"]}', ctx())
    assert a.reasoning == "p. 3 names the committee" and a.citations and a.status == "Answered"
    b = parse_answer('```json\n{"analysis": ["step one", "step two"], "final_answer": "46%", "references": "[1]"}\n```',
                     ctx())
    assert (b.answer, b.reasoning, b.cited_passages) == ("46%", "step one\nstep two", [1])
    # The preferred spelling wins when a reply carries two.
    c = parse_answer('{"answer": "Yes", "final_answer": "No", "citations": [1]}', ctx())
    assert c.answer == "Yes"


@pytest.mark.parametrize("reply", ["", "   ", '{"answer": ""}', '{"answer": "  ", "citations": [1]}',
                                   '{"answer": {}}', '{"answer": []}', '{"thought": "no idea"}'])
def test_empty_replies_are_unparsed_not_answered(reply):
    from autofill.records import RowResult, QuestionRow
    from autofill.states import Outcome

    a = parse_answer(reply, ctx())
    assert a.status == UNPARSED and a.answer == ""
    assert RowResult(QuestionRow("S", 1, "Q?"), a).outcome is Outcome.UNPARSED


def test_an_answer_without_a_valid_citation_is_flagged_but_not_disclosed_is_not():
    from autofill.records import RowResult, QuestionRow
    from autofill.states import Outcome

    flagged = parse_answer('{"answer": "46%", "citations": []}', ctx())
    assert flagged.status == "Answered; no valid citation" and "no valid citation" in flagged.flags
    result = RowResult(QuestionRow("S", 1, "Q?"), flagged)
    assert result.outcome is Outcome.ANSWERED and result.uncited
    quiet = parse_answer('{"answer": "Not disclosed", "citations": []}', ctx())
    assert quiet.status == "Answered" and not RowResult(QuestionRow("S", 1, "Q?"), quiet).uncited
