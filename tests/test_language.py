"""Language detection (autofill/language.py): a text's language from its script and its commonest
function words; documents and questionnaires read whole; what runs and prompts say about languages."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from autofill.language import (LANGUAGES, detect, detect_many, languages_clause, name, prompt_languages,
                               questionnaire_language, questionnaire_languages, report_language, row_languages, row_text)
from autofill.records import QuestionRow

SAMPLES = {
    "en": "Our Scope 1 emissions fell by 5 per cent in the year, and we have confirmed the target for 2030 "
          "with the board. The committee reviews the risks of the transition every quarter.",
    "de": "Unsere Scope-1-Emissionen sind im Jahr um 5 Prozent gesunken, und wir haben das Ziel für 2030 "
          "mit dem Vorstand bestätigt. Der Ausschuss prüft die Risiken des Übergangs jedes Quartal.",
    "fr": "Nos émissions du scope 1 ont baissé de 5 % au cours de l'année et nous avons confirmé l'objectif "
          "pour 2030 avec le conseil. Le comité examine les risques de la transition chaque trimestre.",
    "es": "Nuestras emisiones de alcance 1 bajaron un 5 % en el año y hemos confirmado el objetivo para 2030 "
          "con el consejo. El comité revisa los riesgos de la transición cada trimestre.",
    "it": "Le nostre emissioni di scope 1 sono diminuite del 5 % nell'anno e abbiamo confermato l'obiettivo "
          "per il 2030 con il consiglio. Il comitato esamina i rischi della transizione ogni trimestre.",
    "nl": "Onze scope 1-emissies zijn in het jaar met 5 procent gedaald en we hebben het doel voor 2030 met "
          "de raad bevestigd. Het comité bekijkt de risico's van de transitie elk kwartaal.",
    "pt": "As nossas emissões de âmbito 1 caíram 5 % no ano e confirmámos a meta para 2030 com o conselho. "
          "O comité analisa os riscos da transição em cada trimestre, e são publicados no relatório.",
    "ru": "Наши выбросы снизились на 5 процентов за год, и мы подтвердили цель на 2030 год. Комитет "
          "рассматривает риски перехода каждый квартал и также отчитывается о них для всех.",
    "ja": "当社のスコープ1排出量は前年から5パーセント減少しました。取締役会は2030年の目標を確認しました。",
    "el": "Οι εκπομπές μας μειώθηκαν κατά 5 τοις εκατό μέσα στο έτος και επιβεβαιώσαμε τον στόχο για το 2030.",
}


@pytest.mark.parametrize("code", sorted(SAMPLES))
def test_each_language_is_recognised(code):
    assert detect(SAMPLES[code]) == code


def test_too_little_to_say_is_unknown():
    assert detect("") == ""
    assert detect("Scope 1 emissions 2030") == ""  # no function words: no verdict
    assert detect("CO2 tCO2e 2021 2022 FY2023") == ""
    # One question alone says enough when fewer function words are asked for (as `ask` does).
    assert detect("Wie hoch waren die Scope-1-Emissionen im Jahr 2022?", min_markers=2) == "de"


def test_a_mixed_text_takes_the_language_of_most_of_it():
    text = " ".join([SAMPLES["de"]] * 3 + ["Net zero by 2050 is the goal of the group."])
    assert detect(text) == "de"


def test_every_detected_language_has_a_name_and_stemmable_ones_their_lists():
    import Stemmer
    import bm25s.stopwords

    algorithms = set(Stemmer.algorithms())
    for code, lang in LANGUAGES.items():
        assert name(code) == lang.name
        if lang.stemmer:
            assert lang.stemmer in algorithms, code
        if lang.stopwords:
            assert getattr(bm25s.stopwords, lang.stopwords), code
    assert name("") == "unknown"


def test_a_questionnaire_is_read_whole_and_every_row_gets_its_language():
    rows = [QuestionRow("Q", i, q, form_of_answer=f) for i, (q, f) in enumerate([
        ("Hat das Unternehmen ein Netto-Null-Ziel?", "Ja/Nein und eine kurze Erläuterung"),
        ("Wie hoch waren die Emissionen im letzten Jahr?", "Zahl mit Einheit und Jahr"),
        ("Welche Szenarien nutzt das Unternehmen für die Analyse?", "Liste"),
        ("Scope 3", ""),  # alone this row says nothing; read with the others it is German
    ], start=4)]
    assert questionnaire_language(rows) == "de"
    assert {r.language for r in rows} == {"de"}
    assert detect_many(["The board", "and the committee", "of the group", "is in charge of the risks"]) == "en"


def test_a_questionnaires_questions_outvote_guidance_in_another_language():
    rows = [QuestionRow("Q", i, q, form_of_answer="Text", explanation=f"Guidance for question {i}.") for i, q in
            enumerate(["Description de la cible liée à une politique",
                       "Sur quels leviers l'entreprise s'appuie-t-elle pour réduire ses émissions ?",
                       "Comment l'entreprise décrit-elle le traitement en fin de vie de ses produits vendus ?"], start=1)]
    # Read whole, the English guidance's "for" (English, Danish and Norwegian) leaves no language most words.
    assert detect_many(row_text(r) for r in rows) == ""
    assert questionnaire_language(rows) == "fr"
    assert {r.language for r in rows} == {"fr"}
    short = [QuestionRow("Q", 1, "Scope 3", explanation="Bitte geben Sie die Emissionen an, die das Unternehmen für das letzte Jahr und für die Gruppe nennt.")]
    assert questionnaire_language(short) == "de"  # questions that cannot tell: the whole rows


@dataclass
class Doc:
    file_name: str
    language: str
    pages: int = 1


def test_run_line_and_prompt_languages():
    english = [Doc("a.pdf", "en", 40), Doc("b.pdf", "en", 10)]
    assert languages_clause("de", english) == "questionnaire in German; 2 documents in English"
    mixed = [Doc("a.pdf", "en", 40), Doc("b.pdf", "de", 60)]
    assert languages_clause("en", mixed) == "questionnaire in English; documents: a.pdf English, b.pdf German"
    assert report_language(mixed) == "de" and report_language(english) == "en"
    assert report_language([Doc("x.pdf", "")]) == ""
    # Prompts name languages only where something is not English: English runs prompt as before.
    assert prompt_languages("en", "en") == ("", "") and prompt_languages("", "") == ("", "")
    assert prompt_languages("de", "en") == ("English", "German")
    assert prompt_languages("en", "fr") == ("French", "English")


def test_prompts_name_the_languages_only_where_one_is_not_english():
    from autofill.answer.generate import answer_messages
    from autofill.search.hyde import hyde_messages
    from autofill.records import Passage
    from autofill.settings import Settings

    s = Settings()
    german = QuestionRow("Q", 4, "Wie hoch waren die Scope-1-Emissionen?", language="de")
    english = QuestionRow("Q", 4, "What were the Scope 1 emissions?", language="en")
    passage = Passage("c1", "report.pdf", 2, 2, "Emissions", "Our Scope 1 emissions were 2.4 Mt CO2e.", 1.0, 1)
    hyde = hyde_messages(s, "Acme", german, "en")[1].content
    assert "Write the passage in English, the language of Acme's reports" in hyde
    answer = answer_messages(s, "Acme", german, [passage], "en")[1].content
    assert "Write the answer and the reasoning in German, the language of the questionnaire" in answer
    # English questionnaire and reports: the prompts of before, word for word.
    assert "Write the passage in" not in hyde_messages(s, "Acme", english, "en")[1].content
    assert "Write the answer and the reasoning in" not in answer_messages(s, "Acme", english, [passage], "en")[1].content
    assert "Write the passage in German" in hyde_messages(s, "Acme", english, "de")[1].content


MIXED = [("Does the company have a net zero target for its own operations?", "Yes/No"),
         ("What were the Scope 1 emissions of the group in the year?", "Figure with unit"),
         ("Scope 3", ""),  # too short to tell: the row before it is English
         ("¿Cuál es el objetivo de la empresa para las emisiones y cómo se mide su avance?", "Sí/No"),
         ("¿Qué comité del consejo supervisa el cambio climático y revisa el plan de transición?", "Texto breve"),
         # few function words, shared with other languages ("de", "la"): its Spanish ones decide
         ("¿Cuáles fueron las emisiones de alcance 1 de la empresa en el año?", "Cifra"),
         ("Quali sono state le emissioni di scope 1 dell'azienda e come sono cambiate?", "Sì/No"),
         ("Qual è stata la frequenza degli infortuni dei lavoratori e la loro formazione sulla sicurezza?", "Testo"),
         # one Spanish ("del") and one Italian ("il") function word: a tie, read as the row before it
         ("Quale comitato del consiglio supervisiona il cambiamento climatico?", "Testo breve")]


def test_a_questionnaire_in_several_languages_gives_each_row_its_own():
    """Issue 43: read together, English, Spanish and Italian rows were "" (no language has most of the
    words) and every row was searched as English; each row now has its own language."""
    rows = [QuestionRow("Q", i, q, form_of_answer=f) for i, (q, f) in enumerate(MIXED, start=4)]
    assert detect_many(f"{q} {f}" for q, f in MIXED) == ""  # the whole questionnaire: no one language
    questionnaire_language(rows)
    assert [r.language for r in rows] == ["en", "en", "en", "es", "es", "es", "it", "it", "it"]
    assert questionnaire_languages(rows) == ("en", "es", "it")
    assert languages_clause(questionnaire_languages(rows), [Doc("a.pdf", "en")]) == \
        "questionnaire in English, Spanish, Italian; 1 document in English"
    assert languages_clause(("",), [Doc("a.pdf", "en")]) == "questionnaire in unknown; 1 document in English"


def test_row_languages_reads_rows_one_by_one_only_where_two_languages_each_have_two_rows():
    # One language (and a row misread alone, as one Spanish row of the BHP expert set reads as Turkish):
    # every row keeps the questionnaire's language, as before.
    assert row_languages(["es", "es", "tr", "", "es"], "es") == ["es"] * 5
    assert row_languages(["en", "de"], "") == ["", ""]
    # Two languages with two rows each: each row its own; a row too short to tell takes the row before it
    # (after it at the top); a lone other language (tr) is read as its neighbours ...
    assert row_languages(["", "en", "en", "", "de", "tr", "de"], "en") == ["en", "en", "en", "en", "de", "de", "de"]
    # ... unless its function words lean to one of the questionnaire's languages (a tie does not decide).
    own = ["en", "en", "", "de", "", "de", ""]
    counts = [{"en": 3}, {"en": 3}, {"de": 1, "tr": 2}, {"de": 3}, {"de": 1, "en": 1}, {"de": 3}, {"en": 1}]
    assert row_languages(own, "en", counts) == ["en", "en", "de", "de", "de", "de", "en"]
