"""Quotes that carry the answer (quotes.py, issue 47 part 2): a table row read with its row label and
column headers, never a bare heading; the evidence-only draft quotes the sentence stating a figure in words
before the table row; a model's answer cites the passage stating its figure. Pure functions on realistic
report text, then the real CLI in fresh processes on a generated report (offline, and with the loopback
model)."""

from __future__ import annotations

import json
import re

import pytest

from autofill.answer.evidence_only import evidence_answer, select_quotes
from autofill.answer.generate import cite_figure_page, parse_answer
from autofill.quotes import figures, holding_figures, is_heading, pieces, question_years
from autofill.records import Citation, Passage, QuestionRow
from autofill.review.highlights import select_highlights
from tests.answer_helpers import passages_in, read_output
from tests.llm_server import by_marker, last_user_text
from tests.pdf_factory import make_pdf
from tests.rows_helpers import cli, env_for, last_json
from tests.workbook_builders import build_questionnaire

# As the chunker stores a table (a caption line, the header, its rule, the rows), with a label printed on
# its own line above its figures, as PDF tables often are.
RIO_TABLE = """Equity greenhouse gas emissions
| Equity greenhouse gas emissions (Mt CO2e) | 2023 | 2022 | 2018: |
|---|---|---|---|
| Scope 1 and 2 |  |  |  |
|  | 32.6 | 32.7 | 34.0 |
| Scope 3 | 570.2 | 584.1 | 601.0 |"""

# BHP's Scope 3 table: a caption with the unit, year columns, group rows ("Upstream") over their rows.
BHP_TABLE = """Value chain emissions – performance FY2020 Table 2: Scope 3 GHG emissions by category (million tonnes CO2-e) (1)
|  | 2020 | Year ended 30 June 2019 | 2018 | 2017 |
|---|---|---|---|---|
| Upstream |  |  |  |  |
| Purchased goods and services (including capital goods) | 16.9 | 17.3 | 8.2 | 7.7 |
| Business travel | 0.1 | 0.1 | 0.1 | 0.1 |
| Downstream |  |  |  |  |
| Downstream transportation and distribution (3) | 4.0 | 4.0 | 5.0 | 2.8 |"""

# A header over two lines: the years under a spanning "Scope 1 (kt CO2e)".
TWO_LINE_HEADER = """| Site | Scope 1 (kt CO2e) |  | Scope 2 (kt CO2e) |  |
|---|---|---|---|---|
|  | FY2023 | FY2022 | FY2023 | FY2022 |
| Alpha mine | 120 | 131 | 45 | 52 |"""


def rows_of(text: str) -> list[str]:
    return [p.text for p in pieces(text) if p.row is not None]


def test_a_table_row_is_quoted_with_its_row_label_and_column_headers():
    assert rows_of(RIO_TABLE) == ["Scope 1 and 2 (Mt CO2e), 2023: 32.6; 2022: 32.7; 2018: 34.0",
                                  "Scope 3 (Mt CO2e), 2023: 570.2; 2022: 584.1; 2018: 601.0"]
    row = next(p.row for p in pieces(RIO_TABLE) if p.row is not None)
    assert row.quote({"2023"}) == "Scope 1 and 2 (Mt CO2e), 2023: 32.6"  # the question's year only
    assert row.line == "|  | 32.6 | 32.7 | 34.0 |"  # what pins it to its page


def test_group_rows_caption_units_and_two_line_headers():
    assert rows_of(BHP_TABLE) == [
        "Upstream – Purchased goods and services (including capital goods) (million tonnes CO2-e), 2020: 16.9; "
        "Year ended 30 June 2019: 17.3; 2018: 8.2; 2017: 7.7",
        "Upstream – Business travel (million tonnes CO2-e), 2020: 0.1; Year ended 30 June 2019: 0.1; 2018: 0.1; 2017: 0.1",
        "Downstream transportation and distribution (3) (million tonnes CO2-e), 2020: 4.0; "
        "Year ended 30 June 2019: 4.0; 2018: 5.0; 2017: 2.8"]
    assert rows_of(TWO_LINE_HEADER) == ["Alpha mine, Scope 1 (kt CO2e) FY2023: 120; Scope 1 (kt CO2e) FY2022: 131; "
                                        "Scope 2 (kt CO2e) FY2023: 45; Scope 2 (kt CO2e) FY2022: 52"]


def test_a_year_left_in_the_corner_and_currency_signs_split_from_their_figures():
    # As PyMuPDF's table finder reads them: "2023" in the corner cell, "$" in cells of its own.
    corner = "| Equity greenhouse gas emissions (Mt CO2e) 2023 |  | 2022 |\n|---|---|---|\n| Scope 1 and 2 | 32.6 | 32.7 |"
    assert rows_of(corner) == ["Scope 1 and 2 (Mt CO2e), 2023: 32.6; 2022: 32.7"]
    costco = "|  | August 29, 2021 | August 30, 2020 |\n|---|---|---|\n| TOTAL ASSETS | $ | 59,268 | $ | 55,556 |"
    assert rows_of(costco) == ["TOTAL ASSETS, August 29, 2021: 59,268; August 30, 2020: 55,556"]
    remark = "Table 2: Scope 3 (million tonnes CO2-e)\n| | 2020 |\n|---|---|\n| Purchased goods (including capital goods) | 16.9 |"
    assert rows_of(remark) == ["Purchased goods (including capital goods) (million tonnes CO2-e), 2020: 16.9"]
    assert not is_heading("International, 0.0; 0.0")  # a zero is a figure
    # A balance sheet printing its periods in the caption, none in the header row.
    sheet = ("CONSOLIDATED BALANCE SHEETS (amounts in millions) August 29, 2021 August 30, 2020\n"
             "| ASSETS |  |  |  |  |\n|---|---|---|---|---|\n| Total current assets | 29,505 |  | 28,120 |  |")
    assert rows_of(sheet) == ["Total current assets (amounts in millions), August 29, 2021: 29,505; August 30, 2020: 28,120"]


@pytest.mark.parametrize("text", ["Managed and non-managed operations", "Scope 1 and 2 greenhouse gas emissions",
                                  "Our approach to climate change", "Climate Change Report 2023",
                                  "Taking action through our targets, goals and strategies"])
def test_bare_headings_are_never_pieces(text):
    assert is_heading(text)
    assert pieces(f"{text}\nOur Scope 1 and 2 emissions were 32.6 Mt CO2e in 2023.") == \
        pieces("Our Scope 1 and 2 emissions were 32.6 Mt CO2e in 2023.")


@pytest.mark.parametrize("text", ["Scope 1 and 2 emissions were 32.6 Mt in 2023",
                                  "We have set a target to reduce emissions by 30 per cent.",
                                  "This report focuses on two of the three pillars of our business strategy.",
                                  "• Net zero operational emissions by 2050", "and non-managed operations alike"])
def test_sentences_and_figures_are_not_headings(text):
    assert not is_heading(text)


def test_figures_and_years():
    assert figures("Scope 1 and 2: 31.1Mt CO2e in 2023, 1,450 t, 30.0%") == {"31.1", "1450", "30"}
    assert question_years("What were Scope 1 emissions in FY2023 (and 2022)?") == {"2023", "2022"}


EMISSIONS_ROW = QuestionRow("Climate", 1, "What were the company's total Scope 1 and 2 GHG emissions in 2023?",
                            "Number with unit")


def test_the_draft_quotes_the_labelled_row_never_the_heading():
    passages = [Passage("a", "R.pdf", 3, 3, "Greenhouse gas emissions",
                        "Scope 1 and 2 greenhouse gas emissions\n\n" + RIO_TABLE),
                Passage("b", "R.pdf", 2, 2, "Introduction", "Managed and non-managed operations\n\nThe climate "
                        "section covers Scope 1 and 2 emissions of managed and non-managed operations.")]
    quotes = [u.text for u in select_quotes(EMISSIONS_ROW, passages)]
    assert quotes[0] == "Scope 1 and 2 (Mt CO2e), 2023: 32.6"
    assert not any(is_heading(q) for q in quotes)
    a = evidence_answer(EMISSIONS_ROW, passages, locate=lambda p, text: p.page_start)
    assert a.citations[0] == Citation("R.pdf", 3)
    # The review report marks the table row the quote was read from, not the whole chunk.
    marked = select_highlights(passages[0].text, a.reasoning)
    assert marked[0] == "|  | 32.6 | 32.7 | 34.0 |" and not any("2023 | 2022" in m for m in marked)


def test_a_sentence_stating_the_figure_in_words_is_quoted_first():
    assurance = ("Independent limited assurance report. Based on our procedures, nothing has come to our attention "
                 "that the total Scope 1 and 2 emissions of 31.1Mt CO2e (Location-Based) and 32.6Mt CO2e "
                 "(Market-Based) for 2023 are not fairly stated.")
    passages = [Passage("a", "R.pdf", 3, 3, "Greenhouse gas emissions", RIO_TABLE),
                Passage("b", "R.pdf", 42, 42, "Assurance", assurance)]
    quotes = select_quotes(EMISSIONS_ROW, passages)
    assert "31.1Mt CO2e (Location-Based) and 32.6Mt CO2e (Market-Based)" in quotes[0].text
    assert quotes[1].text == "Scope 1 and 2 (Mt CO2e), 2023: 32.6"
    # A sentence elsewhere that is neither on the row's page nor an assurance statement does not jump ahead.
    passages[1] = Passage("b", "R.pdf", 12, 12, "Targets", "Our emissions of 32.6 Mt were below the cap.")
    assert select_quotes(EMISSIONS_ROW, passages)[0].text == "Scope 1 and 2 (Mt CO2e), 2023: 32.6"


def test_a_model_answer_cites_the_passage_stating_its_figure():
    context = [Passage("a", "R.pdf", 2, 2, "Introduction", "The climate section covers Scope 1 and 2 emissions."),
               Passage("b", "R.pdf", 3, 3, "Greenhouse gas emissions", RIO_TABLE)]
    reply = json.dumps({"reasoning": "Passage 1.", "answer": "32.6 Mt CO2e (market-based) in 2023", "citations": [1]})
    a = cite_figure_page(parse_answer(reply, context), context)
    assert a.citations == [Citation("R.pdf", 3), Citation("R.pdf", 2)] and a.cited_passages == [2, 1]
    # A cited passage that states the figure stays as the model cited it; no figure, nothing added.
    kept = parse_answer(json.dumps({"answer": "32.6 Mt CO2e", "citations": [2]}), context)
    assert cite_figure_page(kept, context) == kept
    words = parse_answer(json.dumps({"answer": "Yes, by 2050 (p. 2)", "citations": [1]}), context)
    assert cite_figure_page(words, context) == words
    assert holding_figures("99.9 Mt", [c.text for c in context], [1]) is None  # no passage holds it: none added


# ---- the real CLI on a generated report

QUESTIONS = [("Climate", "What were the total Scope 1 and 2 greenhouse gas emissions in 2023?", "Number with unit", False),
             ("Climate", "What were the Scope 3 greenhouse gas emissions in 2023?", "Number with unit", False)]
REPORT = "Climate Change Report 2023.pdf"


def report_pages() -> list[list[tuple]]:
    topic = ("Our climate strategy covers Scope 1 and 2 greenhouse gas emissions and Scope 3 greenhouse gas "
             "emissions of our value chain, managed and non-managed operations alike.")
    return [
        [("h1", "Climate Change Report 2023"), ("p", topic)],
        [("h1", "Performance"), ("h2", "Scope 1 and 2 greenhouse gas emissions"),
         ("p", "The table shows equity greenhouse gas emissions for the reporting years."),
         ("table", ["Equity greenhouse gas emissions (Mt CO2e)", "2023", "2022"],
          [["Scope 1 and 2", "32.6", "32.7"], ["Scope 3", "570.2", "584.1"]])],
        [("h1", "Independent limited assurance report"),
         ("p", "Based on our procedures, nothing has come to our attention that causes us to believe that the "
               "total Scope 1 and 2 greenhouse gas emissions of 31.1Mt CO2e (Location-Based) and 32.6Mt CO2e "
               "(Market-Based) for 2023 are not fairly stated.")],
        *([("h1", f"Site {i}"), ("p", "Maintenance, logistics, training and community programmes continued at "
                                      "the site through the year.")] for i in range(1, 4)),
    ]


def ingested(root, server):
    """A workspace with the report ingested (embeddings from the loopback server) and the questionnaire."""
    (root / "reports").mkdir()
    make_pdf(root / "reports" / REPORT, report_pages())
    build_questionnaire(root / "q.xlsx", questions=QUESTIONS, extras=False)
    proc = cli(root, env_for(server), "ingest", "--company", "Rio", "reports", "--json")
    assert proc.returncode == 0, proc.stderr
    return root


def quoted(reasoning: str) -> list[str]:
    return re.findall(r"\u201c(.*?)\u201d", reasoning)


def test_offline_cli_quotes_the_assurance_sentence_and_the_labelled_row(tmp_path, llm_server):
    root = ingested(tmp_path, llm_server)
    proc = cli(root, env_for(llm_server, offline=True), "run", "--company", "Rio", "--questionnaire", "q.xlsx",
               "--out", "offline", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = read_output(root / last_json(proc)["output"])["rows"]
    scope12 = rows[QUESTIONS[0][1]]
    first = quoted(scope12["Reasoning"])
    assert "31.1Mt CO2e (Location-Based) and 32.6Mt CO2e (Market-Based)" in first[0], first
    scope3 = quoted(rows[QUESTIONS[1][1]]["Reasoning"])
    assert scope3[0] == "Scope 3 (Mt CO2e), 2023: 570.2", scope3
    assert rows[QUESTIONS[1][1]]["Sources"].split("; ")[0] == f"{REPORT} p. 2"
    for row in rows.values():
        assert not any(is_heading(q) for q in quoted(row["Reasoning"])), row["Reasoning"]
        assert not any("|" in q for q in quoted(row["Reasoning"]))


def topic_citing_model(req: dict) -> str:
    """Cites the passage that names the topic without a figure, and answers with the figure of another."""
    prompt = last_user_text(req)
    topic = next((n for n, _, _, text in passages_in(prompt) if "climate strategy" in text), 1)
    answer = "32.6 Mt CO2e (market-based) in 2023" if "Scope 1 and 2" in prompt.split("Question:")[-1][:200] \
        else "570.2 Mt CO2e in 2023"
    return json.dumps({"reasoning": f"Passage {topic}.", "answer": answer, "citations": [topic], "confidence": "high"})


def test_with_a_model_the_cited_page_is_the_one_stating_the_figure(tmp_path, llm_server):
    root = ingested(tmp_path, llm_server)
    llm_server.responder = by_marker({"Write a short passage": "A passage about greenhouse gas emissions.",
                                      "single JSON object": topic_citing_model}, default="ok")
    proc = cli(root, env_for(llm_server), "run", "--company", "Rio", "--questionnaire", "q.xlsx",
               "--out", "model", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = read_output(root / last_json(proc)["output"])["rows"]
    assert rows[QUESTIONS[0][1]]["Answer"].startswith("32.6")
    first = rows[QUESTIONS[0][1]]["Sources"].split("; ")[0]
    assert first in (f"{REPORT} p. 2", f"{REPORT} p. 3"), rows[QUESTIONS[0][1]]["Sources"]
    assert rows[QUESTIONS[1][1]]["Sources"].split("; ")[0] == f"{REPORT} p. 2", rows[QUESTIONS[1][1]]["Sources"]
    assert f"{REPORT} p. 1" in rows[QUESTIONS[1][1]]["Sources"]  # the model's own citation is kept after it
