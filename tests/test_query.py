"""Search queries from question rows (search/query.py): instruction words dropped, content kept,
report-side synonyms added."""

from __future__ import annotations

from autofill.search.query import content_words, expansions, lexical_query
from autofill.records import QuestionRow


def _row(question: str, form: str = "", explanation: str = "") -> QuestionRow:
    return QuestionRow("S", 2, question, form_of_answer=form, explanation=explanation)


def test_instructions_are_dropped_and_content_kept():
    row = _row("Assume that you are a public equities analyst. Answer the following question by primarily using "
               "information that is shown in the balance sheet: what is the year end FY2018 net PPNE for 3M? "
               "Answer in USD billions. Round your answer to two decimal places.",
               form="Short answer with figures and units")
    words = lexical_query(row, expand=False).split()
    for dropped in ("Assume", "analyst", "Answer", "Round", "decimal", "places", "Short", "figures", "units",
                    "primarily", "shown"):
        assert dropped not in words
    for kept in ("balance", "sheet", "FY2018", "PPNE", "3M", "USD", "billions", "net", "year", "end"):
        assert kept in words


def test_figures_years_and_hyphenated_terms_survive_cleaning():
    words = content_words("Round the 2030 target (-30%) to 1,234.5 tCO2e; short-term incentive and base year?")
    assert "2030" in words and "30%" in words and "1,234.5" in words and "tCO2e" in words
    assert "short-term" in words and "base" in words and "year" in words
    assert "Round" not in words


def test_synonyms_add_report_wording_once_longest_term_first():
    extra = expansions("What is the FY2018 capital expenditure amount, as shown in the cash flow statement?")
    assert "purchases of property, plant and equipment" in extra
    assert "consolidated statements of cash flows" in extra
    assert len(extra) == len(set(extra))
    # "capital expenditures" matches as the longer key, not again via a shorter one
    assert expansions("capital expenditures") == ["purchases of property, plant and equipment", "additions to property"]


def test_synonym_keys_match_whole_words_only():
    assert expansions("the salesforce integration") == []  # "sales" inside a word
    assert "net sales" in expansions("Total revenue in 2022")
    assert "property, plant and equipment, net" in expansions("What is the net PP&E?")
    assert expansions("") == []


def test_expanded_query_appends_synonyms_after_the_content():
    q = lexical_query(_row("Does the company report in line with TCFD?"), expand=True)
    first, extra = q.split("\n")
    assert "TCFD" in first
    assert extra == "task force on climate-related financial disclosures"


def test_instructions_are_dropped_in_italian_portuguese_and_dutch_too():
    italian = QuestionRow("S", 2, "L'azienda applica un prezzo interno del carbonio?", language="it",
                          form_of_answer="Sì/No e una breve spiegazione",
                          explanation="Rispondere Sì e indicare la valuta.")
    portuguese = QuestionRow("S", 2, "A empresa aplica um preço interno de carbono?", language="pt",
                             form_of_answer="Sim/Não e uma breve explicação",
                             explanation="Responda Sim e indique a moeda.")
    dutch = QuestionRow("S", 2, "Hanteert het bedrijf een interne koolstofprijs?", language="nl",
                        form_of_answer="Ja/Nee en een korte toelichting", explanation="Antwoord Ja en vermeld de valuta.")
    for row, dropped, kept in ((italian, ("breve", "spiegazione", "Rispondere", "indicare"),
                                ("prezzo", "carbonio", "valuta")),
                               (dutch, ("korte", "toelichting", "Antwoord", "vermeld"), ("koolstofprijs", "valuta")),
                               (portuguese, ("breve", "explicação", "Responda", "indique"),
                                ("preço", "carbono", "moeda"))):
        words = lexical_query(row, expand=False).split()
        assert not set(dropped) & set(words) and set(kept) <= set(words), (row.language, words)
