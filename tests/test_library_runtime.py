"""The answer library inside `autofill run`: the Library answer column in every mode, the approved
answer in the answer prompt, reuse without a model call (`--reuse approved`) only while the cited
documents are unchanged, `Changed since approved answer` when a new answer differs materially, and
approved rows of a run's output carried into the library and on to another customer's workbook."""

from __future__ import annotations

import openpyxl
import pytest

from autofill.answer.pipeline import run_questionnaire
from autofill.library.store import Entry, library_path, open_library
from autofill.providers.base import Providers
from autofill.settings import Settings
from autofill.states import Outcome, Tier
from autofill.store.chroma_store import open_store
from tests.answer_helpers import COMPANY, FACTS, MARKERS, SAMPLE, fact_for, make_questionnaire, copied_workspace, \
    read_output
from tests.llm_server import by_marker, last_user_text
from tests.test_pipeline_openai import providers as llm_providers
from tests.test_pipeline_openai import settings_for
from tests.workbook_builders import build_questionnaire

COMMITTEE, RENEWABLE, SCOPE1, TCFD = FACTS[1], FACTS[2], FACTS[3], FACTS[4]


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    _, emb = copied_workspace(root)
    return root, emb, make_questionnaire(root / "questionnaire.xlsx")


@pytest.fixture
def library(ingested):
    """An empty library for each test (the ingested workspace is shared)."""
    root, _, _ = ingested
    s = Settings(workspace=root)
    library_path(s, COMPANY).unlink(missing_ok=True)
    sha = open_store(s, COMPANY).documents()[SAMPLE].sha256

    def add(question, answer, approved="2025-01-15", sources=f"{SAMPLE} p. 3", documents=None):
        with open_library(s, COMPANY) as lib:
            lib.add([Entry(question=question, answer=answer, approved_at=approved, sources=sources, checks=[],
                           reasoning="Approved reasoning.", source_questionnaire="insurer_2025.xlsx",
                           documents={SAMPLE: sha} if documents is None else documents)], "t")

    yield add
    library_path(s, COMPANY).unlink(missing_ok=True)


def test_evidence_only_run_shows_the_library_answer(ingested, library, tmp_path):
    root, emb, questionnaire = ingested
    library("Which committee of the board oversees the climate-related risks and opportunities?",
            "The Board Sustainability Committee.")
    library("What were the Scope 3 emissions in FY2024 (kt CO2e)?", "9,800 kt CO2e.")  # near-duplicate of Scope 1
    report = run_questionnaire(Settings(workspace=root), COMPANY, questionnaire, out_dir=tmp_path,
                               providers=Providers(embedder=emb))
    out = read_output(report.output)
    cell = out["rows"][COMMITTEE.question]["Library answer"]
    assert cell.startswith("The Board Sustainability Committee.\n(approved 2025-01-15, insurer_2025.xlsx; match 0.")
    assert float(cell.rsplit("match ", 1)[1].rstrip(")")) >= 0.8
    assert out["rows"][COMMITTEE.question]["Status"].startswith("Evidence only")  # suggested, not reused
    for f in (SCOPE1, RENEWABLE, TCFD, FACTS[0]):
        assert out["rows"][f.question]["Library answer"] is None, f.question
    assert out["info"]["library answers shown"] == 1 and out["info"]["answer library entries"] == 2
    assert report.reused == 0


def llm_run(root, emb, questionnaire, server, tmp_path, reuse="off"):
    server.responder = by_marker(MARKERS)
    s = settings_for(root, server, tmp_path)
    s.library.reuse = reuse
    return run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=llm_providers(s, emb, tmp_path))


def asked_about(server, fact) -> list:
    return [r for r in server.chat_requests() if fact_for(last_user_text(r.json)) is fact]


def test_reuse_approved_skips_the_model_only_while_cited_documents_are_unchanged(ingested, library, llm_server,
                                                                                tmp_path):
    root, emb, questionnaire = ingested
    library(COMMITTEE.question, "The Board Sustainability Committee, meeting four times a year.")
    library(TCFD.question, "Yes. Prepared in line with TCFD.", documents={SAMPLE: "0" * 64})  # document changed since
    report = llm_run(root, emb, questionnaire, llm_server, tmp_path, reuse="approved")
    out = read_output(report.output)
    reused = out["rows"][COMMITTEE.question]
    assert reused["Status"] == "Reused approved answer (2025-01-15)"
    assert reused["Answer"] == "The Board Sustainability Committee, meeting four times a year."
    assert reused["Sources"] == f"{SAMPLE} p. 3" and reused["Reasoning"] == "Approved reasoning."
    assert "match 1.00" in reused["Library answer"]
    assert reused["Tier"] == "Ready" and not reused["Checks"]
    assert asked_about(llm_server, COMMITTEE) == []  # no HyDE, rerank or answer call for it
    # The TCFD answer cited a document that changed: answered by the model, with the approved answer given.
    assert out["rows"][TCFD.question]["Status"].startswith("Answered")
    answer_prompts = [last_user_text(r.json) for r in asked_about(llm_server, TCFD) if "single JSON object" in
                      last_user_text(r.json)]
    assert answer_prompts and "Previously approved answer" in answer_prompts[0]
    assert "Yes. Prepared in line with TCFD. (approved 2025-01-15)" in answer_prompts[0]
    assert report.reused == 1 and report.to_json()["reused"] == 1 and report.failed == 0
    assert out["info"]["rows reused from the library"] == 1
    total_rows = len(FACTS)
    assert len({fact_for(last_user_text(r.json)).question for r in llm_server.chat_requests()}) == total_rows - 1


def test_reuse_is_off_by_default_and_a_changed_answer_is_flagged(ingested, library, llm_server, tmp_path):
    root, emb, questionnaire = ingested
    library(RENEWABLE.question, "52% in FY2024.", approved="2024-12-01")  # the model will say 46%
    library(COMMITTEE.question, "The Board Sustainability Committee, meeting four times a year.")
    report = llm_run(root, emb, questionnaire, llm_server, tmp_path)
    out = read_output(report.output)
    status = out["rows"][RENEWABLE.question]["Status"]
    assert status.startswith("Answered") and "Changed since approved answer of 2024-12-01" in status
    assert "52%" in status and "46%" in status
    row = out["rows"][RENEWABLE.question]
    assert row["Tier"] != "Ready" and "changed since approved answer of 2024-12-01" in row["Checks"]
    # The same answer as approved: no flag; and without --reuse the model answered it.
    assert "Changed since" not in out["rows"][COMMITTEE.question]["Status"]
    assert asked_about(llm_server, COMMITTEE)
    assert report.reused == 0


def test_changed_flag_on_the_row_result(ingested, library):
    from autofill.library.runtime import RunLibrary
    from autofill.records import Answer, RowResult

    root, emb, _ = ingested
    library(RENEWABLE.question, "52% in FY2024.", approved="2024-12-01")
    s = Settings(workspace=root)
    lib = RunLibrary(s, COMPANY, emb, open_store(s, COMPANY).documents())
    from autofill.records import QuestionRow

    row = QuestionRow(sheet="Q", row=5, question=RENEWABLE.question)
    assert set(lib.match([row])) == {"Q!5"}
    result = RowResult(question=row, answer=Answer(answer="46% in FY2024."), outcome=Outcome.ANSWERED)
    result.tier = Tier.READY  # as the trust checks might have found it
    lib.annotate(result, answered_by_model=True)
    assert result.changed_since_approved and result.library.answer == "52% in FY2024."
    assert result.tier is Tier.CHECK
    lib.annotate(result, answered_by_model=True)
    assert sum(f.startswith("Changed since") for f in result.answer.flags) == 1  # once, however often
    assert sum(c.name == "library" for c in result.checks) == 1
    draft = RowResult(question=row, answer=Answer(answer="Evidence found: 46%"))
    lib.annotate(draft, answered_by_model=False)
    assert not draft.changed_since_approved and draft.library is not None


def _rows_by_question(path, question_header="Question"):
    ws = openpyxl.load_workbook(path).worksheets[0]
    for r in range(1, 10):
        headers = {ws.cell(row=r, column=c).value: c for c in range(1, ws.max_column + 1)}
        if question_header in headers:
            return {ws.cell(row=x, column=headers[question_header]).value:
                    {h: ws.cell(row=x, column=c).value for h, c in headers.items() if h}
                    for x in range(r + 1, ws.max_row + 1) if ws.cell(row=x, column=headers[question_header]).value}
    raise AssertionError("no header")


def test_an_approval_in_one_workbook_appears_in_another_customers_layout(ingested, library, tmp_path):
    root, emb, questionnaire = ingested
    s = Settings(workspace=root)
    first = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=Providers(embedder=emb))
    # A reviewer writes the answer, approves the row and saves the output.
    wb = openpyxl.load_workbook(first.output)
    ws = wb["Questionnaire"]
    heads = {ws.cell(row=3, column=c).value: c for c in range(1, ws.max_column + 1)}
    row = next(r for r in range(4, ws.max_row + 1) if ws.cell(row=r, column=3).value == COMMITTEE.question)
    ws.cell(row=row, column=heads["Answer"], value="The Board Sustainability Committee (four meetings a year).")
    ws.cell(row=row, column=heads["Review"], value="Approved")
    wb.save(first.output)

    # The next run of the same questionnaire learns the approval from the existing output ...
    run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path, providers=Providers(embedder=emb))
    with open_library(s, COMPANY) as lib:
        [entry] = lib.entries()
    assert entry.answer == "The Board Sustainability Committee (four meetings a year)."
    assert entry.source_questionnaire == first.output.name and entry.documents == {SAMPLE: entry.documents[SAMPLE]}

    # ... and another customer's workbook, another layout, the question reworded, shows it.
    other = build_questionnaire(tmp_path / "bank.xlsx", header_row=1, title=False, sections=False, extras=False,
                                headers=["Section", "Question", "Response"],
                                questions=[("Gov", "Which committee of the board oversees the climate-related risks "
                                                   "and opportunities?", "", False),
                                           ("Water", "How much water did the company withdraw?", "", False)])
    third = run_questionnaire(s, COMPANY, other, out_dir=tmp_path, providers=Providers(embedder=emb))
    rows = _rows_by_question(third.output)
    shown = rows["Which committee of the board oversees the climate-related risks and opportunities?"]["Library answer"]
    assert shown.startswith("The Board Sustainability Committee (four meetings a year).\n(approved ")
    assert rows["How much water did the company withdraw?"]["Library answer"] is None


def test_library_disabled(ingested, library, tmp_path):
    root, emb, questionnaire = ingested
    library(COMMITTEE.question, "The Board Sustainability Committee.")
    s = Settings(workspace=root)
    s.library.enabled = False
    out = read_output(run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path,
                                        providers=Providers(embedder=emb)).output)
    assert out["rows"][COMMITTEE.question]["Library answer"] is None
