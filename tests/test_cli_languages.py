"""Questionnaires and reports in different languages, through the real CLI in fresh processes, offline
(no LLM: evidence-only drafts that cite pages): a German questionnaire against an English report and an
English questionnaire against a German report cite the right pages, both in stores built with the
multilingual embedder and in stores of the default English-only embedder, searched across languages with
their multilingual index (store/multilingual.py, built on the first such run, kept after); the run's
first line and `inspect --company` name the languages; with the index switched off, a store whose
embedder reads English only gets one warning for a German questionnaire."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from tests.pdf_factory import make_pdf
from tests.race_helpers import cli

ENGLISH_PAGES = [
    [("h1", "Letter from our chief executive"),
     ("p", "This year we kept our promise to grow while cutting our footprint. I thank our people for their "
           "work and our customers and shareholders for their trust in the company.")],
    [("h1", "Greenhouse gas emissions"),
     ("p", "Our Scope 1 emissions from fuel burned at our own plants were 2.4 million tonnes CO2e in 2023, "
           "8 per cent lower than in 2022. Scope 2 emissions from purchased electricity were 0.9 million "
           "tonnes CO2e.")],
    [("h1", "Water"),
     ("p", "We withdrew 12.4 gigalitres of water in 2023, most of it from the desalination plant at the "
           "port. Water recycled at the mills rose to 61 per cent of all water used.")],
    [("h1", "Health and safety"),
     ("p", "The total recordable injury frequency was 3.1 per million hours worked. Every employee took "
           "part in safety training, and no worker lost their life at our sites this year.")],
    [("h1", "Governance"),
     ("p", "The sustainability committee of the board oversees climate change, reviews the transition "
           "plan every year and sets the climate targets in executive pay.")],
    [("h1", "Renewable electricity"),
     ("p", "Wind and solar power supplied 45 per cent of the electricity we used, up from 30 per cent, "
           "under two long-term power purchase agreements.")],
]
GERMAN_PAGES = [
    [("h1", "Brief des Vorstandsvorsitzenden"),
     ("p", "In diesem Jahr haben wir unser Versprechen gehalten, zu wachsen und zugleich unseren Fußabdruck "
           "zu verringern. Ich danke unseren Mitarbeitenden und unseren Kunden für ihr Vertrauen.")],
    [("h1", "Treibhausgasemissionen"),
     ("p", "Unsere Scope-1-Emissionen aus den in unseren eigenen Werken verbrannten Brennstoffen betrugen "
           "2023 2,4 Millionen Tonnen CO2e, 8 Prozent weniger als 2022. Die Scope-2-Emissionen aus "
           "zugekauftem Strom lagen bei 0,9 Millionen Tonnen CO2e.")],
    [("h1", "Wasser"),
     ("p", "Wir haben 2023 insgesamt 12,4 Gigaliter Wasser entnommen, den größten Teil aus der "
           "Entsalzungsanlage im Hafen. Der Anteil des in den Werken wiederverwendeten Wassers stieg auf 61 "
           "Prozent.")],
    [("h1", "Arbeitssicherheit und Gesundheit"),
     ("p", "Die Unfallhäufigkeit lag bei 3,1 meldepflichtigen Verletzungen je Million Arbeitsstunden. Alle "
           "Beschäftigten nahmen an Sicherheitsschulungen teil, und in diesem Jahr kam an unseren Standorten "
           "niemand ums Leben.")],
    [("h1", "Unternehmensführung"),
     ("p", "Der Nachhaltigkeitsausschuss des Aufsichtsrats überwacht den Klimawandel, prüft den "
           "Transitionsplan jedes Jahr und legt die Klimaziele in der Vorstandsvergütung fest.")],
    [("h1", "Strom aus erneuerbaren Quellen"),
     ("p", "Wind- und Solarenergie deckten 45 Prozent unseres Stromverbrauchs, nach 30 Prozent im Vorjahr, "
           "über zwei langfristige Stromabnahmeverträge.")],
]
# (question, page that answers it), the same five questions in both languages.
GERMAN_QUESTIONS = [
    ("Wie hoch waren die Scope-1-Emissionen im Jahr 2023?", 2),
    ("Wie viel Wasser hat das Unternehmen im Jahr 2023 entnommen?", 3),
    ("Wie hoch war die Unfallhäufigkeit der Beschäftigten?", 4),
    ("Welcher Ausschuss des Aufsichtsrats beaufsichtigt den Klimawandel?", 5),
    ("Welcher Anteil des Stroms stammt aus Wind- und Solarenergie?", 6),
]
ENGLISH_QUESTIONS = [
    ("What were the company's Scope 1 emissions in 2023?", 2),
    ("How much water did the company withdraw in 2023?", 3),
    ("What was the injury frequency rate of the workforce?", 4),
    ("Which board committee oversees climate change?", 5),
    ("What share of the electricity came from wind and solar power?", 6),
]
GERMAN_HEADER = ["Nr.", "Abschnitt", "Frage", "Antwortform", "Antwort", "Kommentare"]
ENGLISH_HEADER = ["No.", "Section", "Question", "Form of answer", "Answer", "Comments"]


def questionnaire(path: Path, header: list[str], questions, section: str, form: str) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Fragebogen" if header is GERMAN_HEADER else "Questionnaire"
    ws.append(header)
    for i, (question, _) in enumerate(questions, start=1):
        ws.append([i, section, question, form, None, None])
    wb.save(path)
    return path


def sources(output: Path) -> dict[str, str]:
    """{question: Sources cell} of a filled workbook (its own header row, whatever the language)."""
    ws = openpyxl.load_workbook(output).worksheets[0]
    head = {c.value: c.column for c in ws[1] if c.value}
    question_col = head.get("Frage") or head.get("Pregunta") or head.get("Domanda") or head["Question"]
    return {ws.cell(row=r, column=question_col).value: ws.cell(row=r, column=head["Sources"]).value or ""
            for r in range(2, ws.max_row + 1)}


def ingested(ws: Path, company: str, pdf: Path, embedding_model: str = "") -> None:
    """`autofill --workspace WS ingest --company COMPANY PDF [--embedding-model M]`, in this process: the
    same settings and ingest_paths the command runs (none of these tests is about the ingest; each CLI
    ingest cost a forked process its own parse server and model loads, ~1.3 CPU-s more)."""
    from autofill.ingest.pipeline import ingest_paths
    from autofill.settings import Settings

    settings = Settings(workspace=ws)
    settings.embedding.model = embedding_model
    report = ingest_paths(settings, company, [pdf])
    assert report.count("failed") == 0 and report.count("new") == 1, report.files


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("languages")
    ws = ["--workspace", str(root / "ws")]
    english = make_pdf(root / "Climate Report 2023.pdf", ENGLISH_PAGES)
    german = make_pdf(root / "Nachhaltigkeitsbericht 2023.pdf", GERMAN_PAGES)
    for company, pdf in (("Anglo", english), ("Teuto", german)):
        ingested(root / "ws", company, pdf, "multilingual-e5-small")
    for company, pdf in (("Anglo English-only", english), ("Teuto English-only", german)):  # the default embedder
        ingested(root / "ws", company, pdf)
    return root, ws, english, german


def run(ws: list[str], company: str, q: Path, out: Path, *options: str) -> tuple[Path, str]:
    """The filled workbook and everything the run said (its first line, warnings, summary)."""
    done = cli([*ws, *options, "run", "--company", company, "--questionnaire", str(q), "--out", str(out)])
    assert done.returncode == 0, done.stderr[-3000:]
    (output,) = out.glob("*.xlsx")
    return output, done.stdout + done.stderr


_ANSWERED: dict[tuple, tuple[Path, str]] = {}


def answered(workspace, company: str, header: list[str], questions, section: str, form: str) -> tuple[Path, str]:
    """run() of that questionnaire against `company` in the module's workspace, once per module: the same
    run (same store, questionnaire and settings) is asked for by the test about its language and by the
    test that compares a mixed sheet's rows with it; the second reads the first's workbook and output."""
    root, ws, _, _ = workspace
    key = (company, tuple(header), tuple(questions), section, form)
    if key not in _ANSWERED:
        n = len(_ANSWERED)
        q = questionnaire(root / f"answered-{n}.xlsx", header, questions, section, form)
        _ANSWERED[key] = run(ws, company, q, root / f"out-answered-{n}")
    return _ANSWERED[key]


ACROSS = [("Anglo", "Climate Report 2023.pdf", GERMAN_HEADER, GERMAN_QUESTIONS, "Klima", "Kurzer Text",
           "questionnaire in German; 1 document in English"),
          ("Teuto", "Nachhaltigkeitsbericht 2023.pdf", ENGLISH_HEADER, ENGLISH_QUESTIONS, "Climate", "Short text",
           "questionnaire in English; 1 document in German")]


@pytest.mark.parametrize("store", ["", " English-only"])
@pytest.mark.parametrize("company, pdf, header, questions, section, form, said", ACROSS)
def test_questions_in_one_language_cite_the_right_pages_of_a_report_in_another(
        workspace, store, company, pdf, header, questions, section, form, said):
    root, ws, _, _ = workspace
    company += store
    q = questionnaire(root / f"{company}.xlsx", header, questions, section, form)
    output, said_all = run(ws, company, q, root / f"out-{company}")
    assert said in said_all and "reads English only" not in said_all
    # Only the default English-only store needs its multilingual index, and says so once.
    assert said_all.count("multilingual index") == (2 if store else 0), said_all[-3000:]
    cited = sources(output)
    for question, page in questions:
        assert cited[question].split("; ")[0] == f"{pdf} p. {page}", (question, cited[question])


def test_the_multilingual_index_is_built_once_and_forgotten_with_the_store(workspace, tmp_path):
    """In a copy of the module's workspace (its stores as the CLI ingested them), so that the English-only
    store can be forgotten here without another ingest and without taking it from the other tests."""
    import shutil

    root, _, _, _ = workspace
    shutil.copytree(root / "ws", tmp_path / "ws")
    ws = ["--workspace", str(tmp_path / "ws")]
    index = tmp_path / "ws" / "vectordb" / ".multilingual"
    q = questionnaire(tmp_path / "de.xlsx", GERMAN_HEADER, GERMAN_QUESTIONS, "Klima", "Kurzer Text")
    run(ws, "Anglo English-only", q, tmp_path / "out-1")
    stamps = {p: p.stat().st_mtime_ns for p in index.glob("*.npz")}  # one per English-only store run so far
    output, said = run(ws, "Anglo English-only", q, tmp_path / "out-2")
    assert "building the multilingual index" not in said  # kept, not built again
    assert {p: p.stat().st_mtime_ns for p in index.glob("*.npz")} == stamps
    assert sources(output)[GERMAN_QUESTIONS[0][0]].startswith("Climate Report 2023.pdf p. 2")
    done = cli([*ws, "forget", "--company", "Anglo English-only", "--yes"])
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(set(stamps) - set(index.glob("*.npz"))) == 1  # its own, not the other company's


def test_with_the_index_off_an_english_only_store_warns_once_and_inspect_names_the_languages(workspace, tmp_path):
    root, ws, _, _ = workspace
    off = tmp_path / "off.toml"
    off.write_text("[retrieval]\nmultilingual_index = false\n")
    q = questionnaire(root / "de.xlsx", GERMAN_HEADER, GERMAN_QUESTIONS, "Klima", "Kurzer Text")
    _, stderr = run(ws, "Teuto English-only", q, root / "out-english-only", "--config", str(off))
    assert stderr.count("reads English only") == 1, stderr[-3000:]
    assert "--embedding-model multilingual-e5-small" in stderr and "multilingual index" not in stderr
    done = cli([*ws, "inspect", str(q), "--company", "Anglo English-only"])
    assert "Note: questions and passages in different languages are searched with the store's multilingual " \
           "index" in done.stdout and "Warning" not in done.stdout

    done = cli([*ws, "inspect", str(q), "--company", "Teuto"])
    assert done.returncode == 0, done.stderr[-3000:]
    assert "language: German" in done.stdout and "Nachhaltigkeitsbericht 2023.pdf: German" in done.stdout
    assert "Warning" not in done.stdout
    done = cli([*ws, "--config", str(off), "inspect", str(q), "--company", "Anglo English-only", "--json"])
    data = json.loads(done.stdout)
    assert data["language"] == "de" and data["documents"] == [{"file": "Climate Report 2023.pdf", "language": "en"}]
    assert "reads English only" in data["language_warning"] and not data["language_note"]


def test_german_questions_are_searched_in_english_words_with_a_dictionary_and_told_which_to_install(
        workspace, tmp_path):
    """A German-English dictionary (FreeDict's layout, written here) in `retrieval.dictionaries`: the run
    says German questions are searched in English words too and still cites the right pages; without one
    it says which Debian package would do it."""
    from tests.dictd_factory import write_dictd

    root, ws, _, _ = workspace
    folder = tmp_path / "dictd"
    write_dictd(folder, "freedict-deu-eng", [
        ("Emissionen", "emissions"), ("Wasser", "water <n>"), ("Unternehmen", "company <n>"),
        ("entnommen", "withdrawn"), ("Unfallhäufigkeit", "injury frequency <n>"), ("Beschäftigten", "employees"),
        ("Ausschuss", "committee <n>"), ("Aufsichtsrats", "board"), ("Klimawandel", "climate change <n>"),
        ("Anteil", "share <n>"), ("Stroms", "electricity"), ("Solarenergie", "solar power <n>")])
    with_dictionary, empty = tmp_path / "with.toml", tmp_path / "empty.toml"
    with_dictionary.write_text(f"[retrieval]\ndictionaries = {json.dumps(str(folder))}\n")
    empty.write_text(f"[retrieval]\ndictionaries = {json.dumps(str(tmp_path / 'none'))}\n")
    q = questionnaire(tmp_path / "de.xlsx", GERMAN_HEADER, GERMAN_QUESTIONS, "Klima", "Kurzer Text")
    output, said = run(ws, "Anglo English-only", q, tmp_path / "out-with", "--config", str(with_dictionary))
    assert said.count("German questions are searched in English words too") == 1, said[-3000:]
    cited = sources(output)
    for question, page in GERMAN_QUESTIONS:
        assert cited[question].split("; ")[0] == f"Climate Report 2023.pdf p. {page}", (question, cited[question])
    done = cli([*ws, "--config", str(with_dictionary), "inspect", str(q), "--company", "Anglo English-only"])
    assert "German questions are searched in English words too" in done.stdout, done.stdout[-2000:]
    _, said = run(ws, "Anglo English-only", q, tmp_path / "out-without", "--config", str(empty))
    assert said.count("install the Debian package dict-freedict-deu-eng") == 1, said[-3000:]
    assert "searched in English words too" not in said


def test_a_questionnaire_across_languages_is_centred_on_all_its_rows_and_a_few_rows_are_not(workspace, tmp_path):
    """search/centring.py through answer/opening.OpenedRun.centre_on, on the stores the CLI built: German
    rows against the English-only store are centred on the mean of all five rows' texts (a row answered
    alone, as a re-answer does, is searched with the same centre); four rows are too few; English rows
    against English documents never meet the multilingual index; the setting turns it off."""
    import numpy as np

    from autofill.search.centring import MIN_ROWS, CentredSearch
    from autofill.answer.opening import open_run
    from autofill.search.retrieval import build_query
    from autofill.settings import load_settings
    from autofill.workbook.layout import read_questions

    root, _, _, _ = workspace
    settings = load_settings(root / "ws", environ={}, overrides={"retrieval": {"query_parts": "row"}})
    german = read_questions(settings, questionnaire(tmp_path / "de.xlsx", GERMAN_HEADER, GERMAN_QUESTIONS,
                                                    "Klima", "Kurzer Text"))[1]
    assert len(german) == MIN_ROWS
    opened = open_run(settings, "Anglo English-only")
    opened.centre_on(german)
    e5 = opened.multilingual.embedder
    mean = np.mean([e5.embed_query(build_query(row)) for row in german], axis=0)
    for row in german:
        assert np.allclose(opened.centre.mean_for(build_query(row)), mean, atol=1e-6)
    searched, _ = opened.row_context().searched_with(german[0])
    assert isinstance(searched, CentredSearch)
    top = searched.search_text(build_query(german[1]), e5, 3)
    assert (top[0].file_name, top[0].page_start) == ("Climate Report 2023.pdf", GERMAN_QUESTIONS[1][1])

    few = open_run(settings, "Anglo English-only")
    few.centre_on(german[:MIN_ROWS - 1])
    assert not few.centre and few.row_context().searched_with(german[0])[0] is few.multilingual
    english = read_questions(settings, questionnaire(tmp_path / "en.xlsx", ENGLISH_HEADER, ENGLISH_QUESTIONS,
                                                     "Climate", "Short text"))[1]
    same = open_run(settings, "Anglo English-only")
    same.centre_on(english)
    assert not same.centre and same.row_context().searched_with(english[0])[0] is same.store
    off = open_run(load_settings(root / "ws", environ={}, overrides={"retrieval": {"centre_queries": False}}),
                   "Anglo English-only")
    off.centre_on(german)
    assert off.centre is None and not isinstance(off.row_context().searched_with(german[0])[0], CentredSearch)


def test_a_run_centres_every_row_across_languages_on_its_questionnaire(workspace, tmp_path, monkeypatch):
    """The run path (answer/pipeline.py, as `run`, `batch` and `eval` take it): each German row's search
    against the English-only store goes through the questionnaire's centre, every row on the same mean,
    and each still cites its page."""
    import numpy as np

    from tests.answer_helpers import centred_searches
    from autofill.answer.pipeline import run_questionnaire
    from autofill.settings import load_settings

    root, _, _, _ = workspace
    settings = load_settings(root / "ws", environ={})
    q = questionnaire(tmp_path / "de.xlsx", GERMAN_HEADER, GERMAN_QUESTIONS, "Klima", "Kurzer Text")
    centred = centred_searches(monkeypatch)
    report = run_questionnaire(settings, "Anglo English-only", q, out_dir=tmp_path / "out", resume=False)
    means = [centred.get(f"{question}\nKurzer Text") for question, _ in GERMAN_QUESTIONS]
    assert all(m is not None for m in means), sorted(centred)
    assert all(np.allclose(m, means[0]) for m in means)
    cited = sources(report.output)
    for question, page in GERMAN_QUESTIONS:
        assert cited[question].split("; ")[0] == f"Climate Report 2023.pdf p. {page}", (question, cited[question])


SPANISH_QUESTIONS = [
    ("¿Cuáles fueron las emisiones de alcance 1 de la empresa y su variación con respecto al año anterior?", 2),
    ("¿Cuánta agua extrajo la empresa en 2023 y cuál es su fuente principal?", 3),
    ("¿Cuál fue la frecuencia de lesiones de los trabajadores y su formación en seguridad?", 4),
    ("¿Qué comité del consejo supervisa el cambio climático y revisa el plan de transición?", 5),
    ("¿Qué parte de la electricidad que se consume procede de la energía eólica y solar?", 6),
]
SPANISH_HEADER = ["N.º", "Sección", "Pregunta", "Forma de respuesta", "Respuesta", "Comentarios"]
FRENCH_QUESTIONS = [
    ("Quelles ont été les émissions de scope 1 de l'entreprise et leur évolution par rapport à l'année précédente ?", 2),
    ("Quelle quantité d'eau l'entreprise a-t-elle prélevée en 2023 et quelle est sa source principale ?", 3),
    ("Quelle a été la fréquence des blessures des travailleurs et leur formation à la sécurité ?", 4),
    ("Quel comité du conseil supervise le changement climatique et examine le plan de transition ?", 5),
    ("Quelle proportion de l'électricité consommée provient de l'énergie éolienne et solaire ?", 6),
]
FRENCH_HEADER = ["N°", "Rubrique", "Question", "Forme de réponse", "Réponse", "Commentaires"]
MACHINE = {"es": ("Spanish", SPANISH_HEADER, SPANISH_QUESTIONS, "Clima", "Texto breve y cifras"),
           "fr": ("French", FRENCH_HEADER, FRENCH_QUESTIONS, "Climat", "Texte court et chiffres")}


@pytest.mark.parametrize("language", sorted(MACHINE))
def test_questions_apertium_has_a_route_for_are_machine_translated_and_cite_the_right_pages(
        workspace, language):
    """With Debian's Apertium and its pairs (scripts/install_dictionaries.sh), Spanish rows (spa-eng) and
    French ones (through Spanish and through Catalan) against the English-only store are searched in
    Apertium's English too; the run names the routes once."""
    from autofill.translation.apertium import DATA, describe, routes

    found = routes(DATA, language, "en")
    if not found:
        pytest.skip(f"Apertium has no {language}-en route here (bash scripts/install_dictionaries.sh)")
    name, header, questions, section, form = MACHINE[language]
    output, said = answered(workspace, "Anglo English-only", header, questions, section, form)
    assert f"questionnaire in {name}" in said and said.count(f"(Apertium {describe(found)})") == 1, said[-3000:]
    cited = sources(output)
    for question, page in questions:
        assert cited[question].split("; ")[0] == f"Climate Report 2023.pdf p. {page}", (question, cited[question])


ITALIAN_QUESTIONS = [
    ("Quali sono state le emissioni di scope 1 dell'azienda e come sono cambiate rispetto all'anno precedente?", 2),
    ("Quanta acqua ha prelevato l'azienda nel 2023 e qual è la sua fonte principale?", 3),
    ("Qual è stata la frequenza degli infortuni dei lavoratori e la loro formazione sulla sicurezza?", 4),
    ("Quale comitato del consiglio supervisiona il cambiamento climatico e riesamina il piano di transizione?", 5),
    ("Quale quota dell'elettricità consumata proviene dall'energia eolica e solare?", 6),
]
ITALIAN_HEADER = ["N.", "Sezione", "Domanda", "Forma di risposta", "Risposta", "Commenti"]


def test_an_italian_questionnaire_is_read_by_its_own_headers_and_cites_the_right_pages(workspace):
    """Italian headers ("Domanda", "Risposta") are read as German, French and Spanish ones are (before, the
    run stopped: no question column found), and its rows find their pages in the English-only store."""
    output, said = answered(workspace, "Anglo English-only", ITALIAN_HEADER, ITALIAN_QUESTIONS, "Clima",
                            "Testo breve e cifre")
    assert "questionnaire in Italian" in said, said[-3000:]
    cited = sources(output)
    for question, page in ITALIAN_QUESTIONS:
        assert cited[question].split("; ")[0] == f"Climate Report 2023.pdf p. {page}", (question, cited[question])


FILING_PAGES = [
    [("h1", "Letter to shareholders"),
     ("p", "We thank our shareholders for a year of steady growth. Our people served more customers than ever, "
           "and we returned cash to owners through dividends and buybacks.")],
    [("h1", "Consolidated Balance Sheets"),
     ("p", "Total current assets were 12,400 million dollars and total current liabilities 9,800 million "
           "dollars at year end. Property, plant and equipment, net, was 4,100 million dollars.")],
    [("h1", "Consolidated Statements of Cash Flows"),
     ("p", "Net cash provided by operating activities was 3,200 million dollars. Purchases of property, plant "
           "and equipment were 1,577 million dollars, the largest item of investing activities.")],
    [("h1", "Consolidated Statements of Income"),
     ("p", "Net sales were 32,765 million dollars, up 3 per cent. Cost of sales was 16,682 million dollars "
           "and operating income 7,207 million dollars.")],
    [("h1", "Our people"),
     ("p", "More staff moved between sites this year, and the picture on this page shows how teams grew. "
           "Training hours per employee rose by a fifth.")],
    [("h1", "Properties"),
     ("p", "We operate twelve plants and forty warehouses on three continents, most of them owned, and lease "
           "our head office.")],
]
FRENCH_FILING_QUESTIONS = [
    ("Le fonds de roulement de l'entreprise est-il positif à la clôture de l'exercice ?", 2),
    ("Quel est le montant des dépenses d'investissement de l'exercice selon le tableau des flux de trésorerie ?", 3),
    ("Quel a été le chiffre d'affaires de l'entreprise au cours de l'exercice ?", 4),
]


def test_french_accounting_terms_are_searched_in_their_english_names(workspace, tmp_path):
    """Apertium knows little accounting ("fonds de roulement" -> "funds of rotation", "tableau des flux de
    trésorerie" -> "picture of the flows"): a French row's keyword search also looks for the English names
    of its own terms (search/terms.py: working capital -> total current assets and liabilities), so that an
    English filing's statements are cited, not the pages its literal translation matches."""
    from autofill.translation.apertium import DATA, routes

    if not routes(DATA, "fr", "en"):
        pytest.skip("Apertium has no fr-en route here (bash scripts/install_dictionaries.sh)")
    root, ws, _, _ = workspace
    ingested(root / "ws", "Ledger", make_pdf(root / "Annual Report 2023.pdf", FILING_PAGES))
    q = questionnaire(tmp_path / "fr-filing.xlsx", FRENCH_HEADER, FRENCH_FILING_QUESTIONS, "Comptes",
                      "Réponse courte avec chiffres et unités")
    output, said = run(ws, "Ledger", q, tmp_path / "out-fr-filing")
    assert "questionnaire in French" in said, said[-3000:]
    cited = sources(output)
    for question, page in FRENCH_FILING_QUESTIONS:
        assert cited[question].split("; ")[0] == f"Annual Report 2023.pdf p. {page}", (question, cited[question])


def test_a_questionnaire_in_three_languages_is_read_row_by_row(workspace, tmp_path):
    """Issue 43: English, Spanish and Italian rows in one sheet (each with its form of answer in its own
    language) against the English-only store: each row's language is its own, so its Spanish and Italian
    rows are searched as a Spanish and an Italian questionnaire's are (multilingual index, translation,
    stemming, centring within their language) and cite the pages those cite; the first line names the three
    languages. Before, the sheet was `questionnaire in unknown`, searched as English, and those rows cited
    no page."""
    root, ws, _, _ = workspace
    groups = [(ENGLISH_QUESTIONS, "Short text"), (SPANISH_QUESTIONS, "Texto breve y cifras"),
              (ITALIAN_QUESTIONS, "Testo breve e cifre")]
    alone: dict[str, str] = {}  # each group's own questionnaire's run (the Spanish and Italian tests' runs)
    for (questions, form), header, section in zip(groups, (ENGLISH_HEADER, SPANISH_HEADER, ITALIAN_HEADER),
                                                  ("Climate", "Clima", "Clima")):
        output, _ = answered(workspace, "Anglo English-only", header, questions, section, form)
        alone.update(sources(output))
    wb = openpyxl.Workbook()
    sheet = wb.active
    sheet.title = "Questionnaire"
    sheet.append(ENGLISH_HEADER)
    number = 0
    for questions, form in groups:
        for question, _ in questions:
            number += 1
            sheet.append([number, "Climate", question, form, None, None])
    mixed = tmp_path / "mixed.xlsx"
    wb.save(mixed)
    output, said = run(ws, "Anglo English-only", mixed, tmp_path / "out-mixed")
    assert "questionnaire in English, Spanish, Italian;" in said, said[-3000:]
    cited = sources(output)
    for questions, _ in groups:
        for question, page in questions:
            assert cited[question].split("; ")[0] == f"Climate Report 2023.pdf p. {page}", (question, cited[question])
            assert cited[question] == alone[question], (question, cited[question], alone[question])
