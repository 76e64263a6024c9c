"""Long rows (issue 43): a row of 10,000 characters (a short question with long guidance, and a long
question) goes through every retrieval mode, second stage and offline reranker of choices.py with the real
CLI in fresh processes, on the bundled local embedders (bge-small-en-v1.5 and multilingual-e5-small) and the
loopback chat model, and without a model: every model with a token limit cuts its own input (the question
kept, guidance cut first), so no row fails and the short question still finds its page."""

from __future__ import annotations

import openpyxl
import pytest

from autofill import choices
from autofill.ingest.pipeline import ingest_paths
from autofill.settings import Settings
from tests.rows_helpers import cli, company_reports, env_for, last_json, responder
from tests.workbook_builders import build_questionnaire

COMPANY = "Long Rows Co"
GUIDANCE = " ".join(f"Guidance note {i}: report the figure for the whole group, state the boundary, the method, "
                    f"the assurance and any restatement of earlier years." for i in range(80))[:10_000]
LONG_QUESTION = ("Describe in full, for each of the sites, " + "the maintenance, logistics and training work, " * 220
                 + "and how many employees the company had at the end of FY2024?")
QUESTIONS = [("Climate", "What share of electricity consumption was renewable in FY2024?", "Percentage", False),
             ("People", LONG_QUESTION, "Number", False)]
# Each retrieval mode, second stage and offline reranker at least once (cohere needs its own endpoint).
COMBINATIONS = [("hyde+hybrid", "colbert-question+cross-encoder", "llm"),
                ("hybrid", "colbert+cross-encoder", "cross-encoder"),
                ("dense", "colbert", "none"),
                ("hyde", "none", "llm"),
                ("hybrid", "none", "cross-encoder")]


def test_the_combinations_cover_every_choice():
    assert {c[0] for c in COMBINATIONS} == set(choices.names(choices.RETRIEVAL_MODES)) - {"auto"}
    assert {c[1] for c in COMBINATIONS} == set(choices.names(choices.SECOND_STAGES)) - {"auto"}
    assert {c[2] for c in COMBINATIONS} == set(choices.names(choices.RERANKERS)) - {"auto", "cohere"}


def _questionnaire(path):
    build_questionnaire(path, questions=QUESTIONS, extras=False)
    wb = openpyxl.load_workbook(path)
    ws = wb["Questionnaire"]
    for row in ws.iter_rows():
        for cell in row:
            if cell.value == "Guidance for question 1.":
                cell.value = GUIDANCE
    wb.save(path)
    assert len(QUESTIONS[0][1]) + len(GUIDANCE) > 10_000 and len(LONG_QUESTION) > 10_000
    return path


def _rows(output):
    ws = openpyxl.load_workbook(output)["Questionnaire"]
    head = next(r for r in range(1, 10) if ws.cell(row=r, column=3).value == "Question")
    cols = {c.value: c.column for c in ws[head] if c.value}
    return [{h: ws.cell(row=r, column=c).value for h, c in cols.items()}
            for r in range(head + 1, ws.max_row + 1) if ws.cell(row=r, column=cols["Question"]).value]


@pytest.mark.parametrize("embedding_model", ["bge-small-en-v1.5", "multilingual-e5-small"])
def test_a_10000_character_row_is_answered_in_every_mode(tmp_path, llm_server, embedding_model):
    _questionnaire(tmp_path / "q.xlsx")
    company_reports(tmp_path / "reports", COMPANY, 40, 900)
    llm_server.responder = responder()
    env = env_for(llm_server, AUTOFILL_EMBEDDING__PROVIDER="local")
    # The ingest is setup (the rows are what is tested): `ingest --embedding-model M` as the command runs it,
    # in this process; the runs below are the CLI's, in fresh processes.
    settings = Settings(workspace=tmp_path)
    settings.embedding.provider, settings.embedding.model = "local", embedding_model
    ingest = ingest_paths(settings, COMPANY, [tmp_path / "reports"])
    assert ingest.count("failed") == 0 and ingest.count("new") == 1, ingest.files
    combinations = COMBINATIONS if embedding_model == "bge-small-en-v1.5" else COMBINATIONS[:1]
    for mode, stage, reranker in combinations:
        run_env = {**env, "AUTOFILL_RETRIEVAL__MODE": mode, "AUTOFILL_RETRIEVAL__SECOND_STAGE": stage,
                   "AUTOFILL_RETRIEVAL__RERANKER": reranker}
        for attempt in ("first",):  # --fresh: each combination asks again
            proc = cli(tmp_path, run_env, "run", "--company", COMPANY, "--questionnaire", "q.xlsx", "--json", "--fresh")
            data = last_json(proc)
            rows = _rows(data["output"])
            assert proc.returncode == 0 and data["failed"] == 0 and data["answered"] == 2, \
                (mode, stage, reranker, attempt, [r["Status"] for r in rows], proc.stderr[-2000:])
            assert "Truncation" not in " ".join(str(v) for r in rows for v in r.values())
            # The short question is kept whole: its page (the renewable share, page 1) is found and cited.
            assert rows[0]["Answer"].startswith("40%"), (mode, stage, reranker, rows[0])
            assert rows[1]["Answer"].startswith("900"), (mode, stage, reranker, rows[1])
    # Without a model (evidence-only drafts), with the default second stage: drafted, citing their pages.
    proc = cli(tmp_path, env_for(llm_server, offline=True, AUTOFILL_EMBEDDING__PROVIDER="local"), "run", "--company",
               COMPANY, "--questionnaire", "q.xlsx", "--json", "--fresh")
    data = last_json(proc)
    rows = _rows(data["output"])
    assert proc.returncode == 0 and data["failed"] == 0 and data["drafted"] == 2, \
        ([r["Status"] for r in rows], proc.stderr[-2000:])
    assert rows[0]["Sources"].startswith("report 40-900.pdf p. 1"), rows[0]["Sources"]
