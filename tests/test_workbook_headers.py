"""The customer's own columns (issue 32): a questionnaire's own Reviewer comment and Review columns are
used, not doubled, by the run, the review page and the decisions it writes; a customer's own Status
keeps its values and autofill's Status beside it reads "Status (autofill)", so no header is there twice
and every reader of the output means the same column."""

from __future__ import annotations

from collections import Counter

import openpyxl

from autofill.answer.pipeline import run_questionnaire
from autofill.providers.base import Providers
from autofill.settings import Settings
from autofill.workbook import headers as H
from autofill.workbook.layout import inspect_workbook, read_questions
from tests.answer_helpers import COMPANY, FACTS, copied_workspace
from tests.test_review_app import Server

HEADER = ["No.", "Question", "Answer", "Reviewer comment", "Status"]
CUSTOMER_COMMENT = "Customer: quote the page number"


def customer_questionnaire(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws.append(HEADER)
    ws.append(["1", FACTS[0].question, None, CUSTOMER_COMMENT, "Open"])
    ws.append(["2", FACTS[1].question, None, None, "Open"])
    wb.save(path)
    return path


def test_a_lone_reviewer_column_is_the_customers_and_a_lone_status_is_not_ours():
    roles = H.header_roles(list(enumerate(HEADER, start=1)))
    assert roles["reviewer_comment"] == (4, "Reviewer comment") and "status" not in roles
    assert H.header_roles([(1, "Question"), (2, "Review")])["review"] == (2, "Review")
    assert H.added_role("Status (autofill)") == "status"


def test_the_customers_reviewer_comment_column_is_used_from_run_to_review(tmp_path):
    settings, emb = copied_workspace(tmp_path, filler=False)
    questionnaire = customer_questionnaire(tmp_path / "questionnaire.xlsx")
    sheet = inspect_workbook(settings, questionnaire).sheets[0]
    assert (sheet.columns["reviewer_comment"].letter, sheet.columns["reviewer_comment"].added) == ("D", False)
    assert sheet.columns["status"].header == "Status (autofill)"

    output = run_questionnaire(settings, COMPANY, questionnaire, providers=Providers(embedder=emb)).output
    ws = openpyxl.load_workbook(output)["Questionnaire"]
    header = [c.value for c in ws[1] if c.value is not None]
    assert [h for h, n in Counter(header).items() if n > 1] == []  # no header twice
    assert header.count("Reviewer comment") == 1 and "Status (autofill)" in header
    assert (ws["D2"].value, ws["E2"].value, ws["E3"].value) == (CUSTOMER_COMMENT, "Open", "Open")

    srv = Server(Settings(workspace=tmp_path), output)
    try:
        key = next(k for k, q in srv.session.questions.items() if q.row == 2)
        assert srv.session.state(key)["reviewer_comment"] == CUSTOMER_COMMENT  # the page shows theirs ...
        assert srv.session.questions[key].status != "Open"  # ... and autofill's Status, not the customer's
        assert CUSTOMER_COMMENT in srv.client.get("/").text
        assert srv.decide(key, "Needs changes", reviewer_comment="Ana: cite p. 2").status_code == 200
        srv.session.flush()
    finally:
        srv.close()
    ws = openpyxl.load_workbook(output)["Questionnaire"]
    assert ws["D2"].value == "Ana: cite p. 2"  # ... and the decision goes into the customer's column
    assert sum(c.value == "Ana: cite p. 2" for c in ws[2]) == 1
    q = next(q for q in read_questions(Settings(workspace=tmp_path), output)[1] if q.row == 2)
    assert (q.reviewer_comment, q.review) == ("Ana: cite p. 2", "Needs changes")


HEADERS_BY_LANGUAGE = {  # as questionnaires in each language head their columns (benchmarks/devsets)
    "de": ["Nr.", "Abschnitt", "Frage", "Antwortform", "Erläuterung", "Antwort", "Kommentare"],
    "fr": ["N°", "Rubrique", "Question", "Forme de réponse", "Explication", "Réponse", "Commentaires"],
    "es": ["Nº", "Sección", "Pregunta", "Forma de respuesta", "Explicación", "Respuesta", "Comentarios"],
    "it": ["N.", "Sezione", "Domanda", "Forma di risposta", "Spiegazione", "Risposta", "Commenti"],
    "pt": ["N.º", "Seção", "Pergunta", "Forma de resposta", "Explicação", "Resposta", "Comentários"],
    "nl": ["Nr.", "Onderdeel", "Vraag", "Antwoordvorm", "Toelichting", "Antwoord", "Opmerkingen"],
}


def test_every_column_of_a_questionnaire_in_another_language_is_known_by_its_role():
    """An Italian, Portuguese or Dutch header row is read as a German, French or Spanish one is: before,
    "no question column found" stopped such a run."""
    roles = ["number", "section", "question", "form_of_answer", "explanation", "answer", "comments"]
    for language, header in HEADERS_BY_LANGUAGE.items():
        found = H.header_roles(list(enumerate(header, start=1)))
        assert {role: found[role][0] for role in roles if role in found} == {
            role: i for i, role in enumerate(roles, start=1)}, (language, found)
