"""autofill/translation/apertium.py and its use by translation/translator.py: routes into English found among the installed
pairs (French through Spanish and through Catalan), real translations by Debian's Apertium (installed by
scripts/install_dictionaries.sh, which the test command runs), and the dictionary serving the languages
Apertium has no route for and any row it fails on."""

from __future__ import annotations

import shutil

import pytest

from autofill.translation.apertium import DATA, describe, routes, translate
from autofill.translation.translator import QueryTranslator, translation_note
from autofill.records import QuestionRow
from tests.dictd_factory import write_dictd

installed = pytest.mark.skipif(shutil.which("apertium") is None or not routes(DATA, "es", "en"),
                               reason="Apertium with apertium-eng-spa not installed (bash scripts/install_dictionaries.sh)")


def modes(folder, *names, command="cat"):
    """An Apertium data folder whose pairs `names` each run `command` (a shell pipeline, as Debian's do)."""
    (folder / "modes").mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / "modes" / f"{name}.mode").write_text(f"{command}\n")
    return folder


@pytest.mark.skipif(shutil.which("apertium") is None, reason="no apertium program")
def test_a_route_is_its_own_pair_or_else_every_two_through_a_language_between(tmp_path):
    data = modes(tmp_path / "one", "spa-eng", "fr-es", "es-fr", "eng-spa", "fra-cat", "cat-eng", "spa-cat")
    assert routes(data, "es", "en") == (("spa-eng",),)  # its own pair only, though Catalan would do too
    # two letters and three, through Spanish and through Catalan
    assert routes(data, "fr", "en") == (("fr-es", "spa-eng"), ("fra-cat", "cat-eng"))
    assert describe(routes(data, "fr", "en")) == "fr-es, then spa-eng; fra-cat, then cat-eng"
    assert routes(data, "de", "en") == () and routes(data, "en", "en") == ()
    assert routes(modes(tmp_path / "none"), "es", "en") == ()


def test_without_the_apertium_program_there_is_no_route(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert routes(modes(tmp_path, "spa-eng"), "es", "en") == ()


@installed
def test_spanish_and_french_questions_are_translated_whole_and_together():
    spanish = translate(["¿Qué porcentaje de las emisiones directas (alcance 1) está sujeto a límites obligatorios?",
                         "¿Cuánta agua\nconsume la empresa?"], routes(DATA, "es", "en"))
    assert "direct emissions" in spanish[0] and "compulsory" in spanish[0] and "1" in spanish[0], spanish
    assert "water" in spanish[1] and "company" in spanish[1] and "emissions" not in spanish[1], spanish
    french_routes = routes(DATA, "fr", "en")
    if french_routes:
        french, = translate(["Quelle part des émissions directes de l'entreprise ?"], french_routes)
        assert "direct emissions" in french and "company" in french, french
        if len(french_routes) == 2:  # each route's translation, joined
            assert french.count("direct emissions") == 2, french


@pytest.mark.skipif(shutil.which("apertium") is None, reason="no apertium program")
def test_a_word_the_first_pair_leaves_is_carried_past_the_second_as_it_is(tmp_path):
    # the first pair marks a name it does not know; the second would read it as a word of its own
    # language (spa-eng read "Adobe" as Spanish "adobe": "Season") and capitalises a sentence's start
    data = modes(tmp_path, "fr-es", command="sed -e 's/marge/margen/' -e 's/Adobe/*Adobe/g'")
    modes(data, "spa-eng", command="sed -e 's/margen/margin/' -e 's/Adobe/Season/g' -e 's/^z/Z/'")
    out, = translate(["Adobe : marge d'Adobe"], (("fr-es", "spa-eng"),), data)
    assert out == "Adobe : margin d'Adobe", out


@installed
def test_a_name_keeps_its_spelling_through_a_pivot():
    french_routes = routes(DATA, "fr", "en")
    if not any(len(route) == 2 for route in french_routes):
        pytest.skip("no French pivot installed")
    out, = translate(["La marge opérationnelle d'Adobe s'améliore-t-elle ?"], french_routes)
    assert out.count("Adobe") == len(french_routes) and "Season" not in out, out
    assert "zqx" not in out.lower(), out


def apertium_inputs(monkeypatch) -> list[str]:
    """The texts handed to Apertium from now on (each call's input), Apertium still run."""
    import autofill.translation.apertium as apertium

    calls: list[str] = []
    run = apertium.subprocess.run
    monkeypatch.setattr(apertium.subprocess, "run", lambda args, **kw: calls.append(kw["input"]) or run(args, **kw))
    return calls


class Embedder:
    def embed_query(self, text):
        return [1.0, 0.0]


def row(question, language):
    return QuestionRow(sheet="Q", row=2, number="1", question=question, language=language)


@installed
def test_the_translator_uses_apertium_where_it_has_a_route_and_the_dictionary_elsewhere(tmp_path):
    folder = tmp_path / "dictd"
    write_dictd(folder, "freedict-deu-eng", [("Emissionen", "emissions"), ("Wasser", "water <n>")])
    write_dictd(folder, "freedict-spa-eng", [("emisiones", "broadcasts")])
    translator = QueryTranslator(str(folder), Embedder(), ["en"], DATA)
    assert "emissions" in translator.for_row(row("¿Cuáles fueron las emisiones directas?", "es"))
    assert translator.for_row(row("Emissionen Wasser", "de")) == "emissions water"  # no route: the dictionary
    assert "(Apertium spa-eng)" in translator.note("es") and "dictionary" in translator.note("de")
    rows = [row("¿Cuáles fueron las emisiones directas?", "es"), row("Emissionen Wasser", "de"), row("Ja", "da")]
    assert translator.for_rows(rows) == [translator.for_row(r) for r in rows] and translator.for_rows(rows)[2] == ""
    without = QueryTranslator(str(folder), Embedder(), ["en"], "")  # retrieval.apertium = ""
    assert without.for_row(row("emisiones", "es")) == "broadcasts"
    assert "Apertium" not in translation_note(str(folder), "es", "en", "")


@pytest.mark.skipif(shutil.which("apertium") is None, reason="no apertium program")
def test_a_row_apertium_fails_on_is_looked_up_in_the_dictionary(tmp_path, caplog):
    """A broken pair (a mode file that does not run) fails the translation, not the row."""
    data = modes(tmp_path / "apertium", "spa-eng", command="no-such-program-anywhere")
    folder = tmp_path / "dictd"
    write_dictd(folder, "freedict-spa-eng", [("emisiones", "emissions")])
    translator = QueryTranslator(str(folder), Embedder(), ["en"], str(data))
    assert translator.routes_for("es") == (("spa-eng",),)
    assert translator.for_rows([row("emisiones", "es"), row("¿emisiones?", "es")]) == ["emissions", "emissions"]
    assert caplog.text.count("Apertium (spa-eng) failed on a row") == 2


@installed
def test_a_questionnaires_rows_are_each_translated_alone_and_once(tmp_path, monkeypatch):
    """for_rows translates the rows not yet translated, each in its own Apertium process (in one input a
    row's words followed from the row before it), so each reads as it does translated on its own; a row
    already translated is not sent again."""
    calls = apertium_inputs(monkeypatch)
    translator = QueryTranslator(str(tmp_path), Embedder(), ["en"], DATA)
    questions = ["Indique las cifras con unidad y período", "Quelles cessions annoncées réduisent l'exposition ?",
                 "¿Qué comité supervisa el clima?"]
    rows = [row(questions[0], "es"), row(questions[1], "fr"), row(questions[2], "es")]
    texts = translator.for_rows(rows)
    assert texts == [QueryTranslator(str(tmp_path), Embedder(), ["en"], DATA).for_row(r) for r in rows]
    assert "period" in texts[0] and "committee" in texts[2], texts
    assert all("\n" not in text.strip() for text in calls), calls  # never two rows in one input
    sent = len(calls)
    assert translator.for_row(rows[2]) == texts[2] and len(calls) == sent


@pytest.mark.skipif(shutil.which("apertium") is None, reason="no apertium program")
def test_only_the_row_apertium_fails_on_falls_back_to_the_dictionary(tmp_path, caplog):
    """Rows translated together: one that fails goes to the dictionary, the others keep Apertium's words."""
    data = modes(tmp_path / "apertium", "spa-eng", command="awk '/boom/ { exit 1 } { print toupper($0) }'")
    folder = tmp_path / "dictd"
    write_dictd(folder, "freedict-spa-eng", [("agua", "water"), ("boom", "bang")])
    translator = QueryTranslator(str(folder), Embedder(), ["en"], str(data))
    assert translator.for_rows([row("agua", "es"), row("boom agua", "es")]) == ["AGUA", "bang water"]
    assert caplog.text.count("failed on a row") == 1


@installed
def test_translations_are_kept_in_the_workspace_and_not_made_again(tmp_path, monkeypatch):
    """A second translator on the same cache (a re-answer, a re-run) reads Apertium's translations back
    instead of running it; a failure is not kept."""
    from autofill.translation.translator import cache_key, cache_path
    from autofill.sqlite_cache import BlobCache

    calls = apertium_inputs(monkeypatch)
    rows = [row("¿Cuánta agua extrajo la empresa?", "es"), row("¿Qué comité supervisa el clima?", "es")]
    path = cache_path(tmp_path / "vectordb")
    first = QueryTranslator(str(tmp_path), Embedder(), ["en"], DATA, BlobCache(path)).for_rows(rows)
    assert len(calls) == 2 and "water" in first[0] and path.is_file()
    kept = BlobCache(path).get_blobs([cache_key(DATA, routes(DATA, "es", "en"), "es", rows[0].question)])
    assert list(kept.values()) == [first[0].encode()]  # keyed by the data folder, routes, language and text
    again = QueryTranslator(str(tmp_path), Embedder(), ["en"], DATA, BlobCache(path))
    assert again.for_rows(rows) == first and len(calls) == 2  # read back, Apertium not run
    assert again.for_rows([row("¿Y la energía?", "es")]) and len(calls) == 3  # a new row is translated

    broken = modes(tmp_path / "broken", "spa-eng", command="false")
    failing = QueryTranslator(str(tmp_path), Embedder(), ["en"], str(broken), BlobCache(path))
    assert failing.for_rows([row("¿Cuánta agua?", "es")]) == [""]  # no dictionary here either
    key = cache_key(str(broken), (("spa-eng",),), "es", "¿Cuánta agua?")
    assert BlobCache(path).get_blobs([key]) == {}  # the failure was not kept: the next run tries again
