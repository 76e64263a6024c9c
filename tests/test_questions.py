"""One rule for "is this the same question?" (autofill/questions.py), and every place that decides it
agreeing with it on the same table of cases: the answer library's key and match, the portfolio's
questions across companies, a checkpointed row, the review page's "add to library", and a new version of
a questionnaire carried over from the old output (a real run through the loopback model).

Before the one rule, the places disagreed on every "same" case below but the plain re-spacing ones:
the carry, the review page and the portfolio told "Scope 1, 2 and 3" from "Scope 1 2 and 3", "CO₂" from
"CO2" and a zero-width space from none; the carry and the review page a trailing "?" from none; and a
checkpointed row was answered again for any re-spacing or change of case."""

from __future__ import annotations

import pytest

from autofill import questions
from autofill.records import QuestionRow

# (a, b, the same question?)
CASES = [
    ("What is X?", "What is X", True),  # a trailing question mark
    ("What  is\nX?", "what is x?", True),  # spacing, line breaks and case
    ("What\u00a0is X?", "What is X?", True),  # a non-breaking space
    ("What is\u200b X?", "What is X?", True),  # a zero-width space
    ("Scope 1, 2 and 3 emissions", "Scope 1 2 and 3 emissions", True),  # punctuation inside
    ("\u00c9missions de CO\u2082?", "E\u0301missions de CO2?", True),  # composed / decomposed accent, subscript
    ("\uff23\uff2f\uff12 emissions", "CO2 emissions", True),  # full-width letters and digits
    ('"Net zero" target?', "Net-zero target", True),  # quotes and dashes
    ("Energy use (MWh)", "Energy use MWh", True),  # brackets
    ("Total", "Total (%)", False),  # a percentage asks for another figure
    ("Share <5%", "Share >5%", False),  # comparison signs count
    ("STRASSE", "strasse", True),
    ("Scope 1 and 2", "Scope 12", False),  # digits stay apart
    ("\u00c9missions", "Emissions", False),  # accents count
    ("Water use", "Water withdrawal", False),
    ("", "", False),  # no words: the same question as nothing
    ("?", "", False),
]
IDS = [f"{a!r}-{b!r}" for a, b, _ in CASES]


def test_the_key_is_the_words_in_nfkc_lower_case():
    assert questions.question_key("  Scope 1, 2 & 3 — GHG\u00a0emissions (tCO\u2082e)?  ") == \
        "scope 1 2 3 ghg emissions tco2e"
    assert questions.question_key("Share of sites (%) < 5?") == "share of sites % < 5"
    assert questions.question_key(None) == "" and questions.question_key("?!") == ""


@pytest.mark.parametrize("a, b, same", CASES, ids=IDS)
def test_the_rule(a, b, same):
    assert questions.same_question(a, b) is same
    assert questions.same_question(b, a) is same


def _keyed(key):
    return lambda a, b: bool(key(a)) and key(a) == key(b)


def _checkpoint(a, b):
    from autofill.answer.checkpoint import question_key

    return bool(questions.question_key(a)) and question_key(QuestionRow("S", 2, a)) == question_key(QuestionRow("S", 2, b))


def _library(a, b):
    from autofill.library.store import question_key

    return _keyed(question_key)(a, b)


def _library_match(a, b):
    from autofill.library.match import same_question

    return same_question(a, b)


def _portfolio(a, b):
    from autofill.portfolio.workbook import question_key

    return _keyed(question_key)(a, b)


def _review_page(a, b):
    from autofill.review_app import reanswer

    return reanswer.same_question(a, b)  # what add_to_library picks its row's entry by


def _carry(a, b):
    from autofill.workbook import carry

    return _keyed(carry.question_key)(a, b)  # what carry_by_text indexes rows by, beside their sheet


CALLERS = {"checkpoint": _checkpoint, "library": _library, "library match": _library_match,
           "portfolio": _portfolio, "review page": _review_page, "carry": _carry}


@pytest.mark.parametrize("caller", list(CALLERS.values()), ids=list(CALLERS))
@pytest.mark.parametrize("a, b, same", CASES, ids=IDS)
def test_every_caller_agrees_with_the_rule(caller, a, b, same):
    assert caller(a, b) is same


def test_a_checkpointed_row_still_differs_by_its_place_form_and_guidance():
    from autofill.answer.checkpoint import question_key

    row = QuestionRow("S", 2, "What is X?", form_of_answer="Number", explanation="In tonnes")
    assert question_key(row) == question_key(QuestionRow("S", 2, "what is  X", form_of_answer="number.",
                                                         explanation="In tonnes"))
    assert question_key(row) != question_key(QuestionRow("S", 3, "What is X?", form_of_answer="Number",
                                                         explanation="In tonnes"))
    assert question_key(row) != question_key(QuestionRow("S", 2, "What is X?", form_of_answer="Text",
                                                         explanation="In tonnes"))
    assert question_key(row) != question_key(QuestionRow("S", 2, "What is X?", form_of_answer="Number",
                                                         explanation="In kilotonnes"))


def test_a_new_version_respelling_an_approved_question_keeps_the_reviewers_work(llm_server, tmp_path,
                                                                               tmp_path_factory):
    """The customer's v2 adds a question at the top and re-types an approved one (its "?" dropped, a
    non-breaking space, a double space): the approved row is carried by its question, not asked again.
    Two approved rows that the rule makes one question ("... FY2024?" and "... FY2024 ?!") keep their
    identical texts and are carried too: identical text is paired before the rule."""
    from dataclasses import replace

    from tests.answer_helpers import FACTS, MARKERS, make_questionnaire, copied_workspace
    from tests.llm_server import by_marker
    from tests.test_carry import Sheet, run, settings_for
    from tests.workbook_builders import build_questionnaire

    root = tmp_path_factory.mktemp("ws")
    _, emb = copied_workspace(root)
    llm_server.responder = by_marker(MARKERS)
    s = settings_for(root, llm_server)
    a, b, c, new = FACTS[0], FACTS[1], FACTS[2], FACTS[4]
    c2 = replace(c, question=c.question.replace("?", " ?!"))
    assert questions.same_question(c.question, c2.question)
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    v1 = make_questionnaire(tmp_path / "v1" / "questionnaire.xlsx", [a, b, c, c2])
    respelled = a.question.rstrip("?").replace(" have ", "\u00a0have  ")
    assert respelled != a.question and questions.same_question(respelled, a.question)
    v2 = build_questionnaire(tmp_path / "v2" / "questionnaire.xlsx", extras=False,
                             questions=[("Climate", q, f.form, f.dropdown) for q, f in
                                        ((new.question, new), (respelled, a), (b.question, b), (c.question, c),
                                         (c2.question, c2))])
    first = run(s, emb, v1, tmp_path / "out")
    sheet = Sheet(first.output)
    for fact, answer in ((a, "Yes"), (c, "46%"), (c2, "46")):
        sheet.set(fact, "Answer", answer)
        sheet.set(fact, "Review", "Approved")
    sheet.wb.save(first.output)

    llm_server.reset()
    second = run(s, emb, v2, tmp_path / "out")
    assert llm_server.chat_requests(containing=new.question)  # the new question was answered
    assert llm_server.chat_requests(containing="a net zero target for Scope 1") == []  # the approved ones not
    assert llm_server.chat_requests(containing="renewable electricity in FY2024") == []
    after = Sheet(second.output)
    for question, answer in ((respelled, "Yes"), (c.question, "46%"), (c2.question, "46")):
        row = after.row[question]
        assert after.ws.cell(row=row, column=after.col["Answer"]).value == answer
        assert after.ws.cell(row=row, column=after.col["Review"]).value == "Approved"
