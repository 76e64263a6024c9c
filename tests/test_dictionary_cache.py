"""autofill/translation/dictionary_cache.py: a large dictionary read whole once and looked up word by word in
its compact file afterwards, with the very translations the whole read gives (issue 46)."""

from __future__ import annotations

import gzip
import logging
import os
from pathlib import Path

import pytest

from autofill.translation import dictionary_cache
from autofill.translation.dictionaries import Dictionary, KEEP, find, translation_terms
from autofill.translation.dictionary_cache import compact_path, open_dictionary
from autofill.translation.translator import translate_query
from autofill.store.bm25_index import stop_words
from tests.dictd_factory import write_dictd

_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def whole_read(index: Path) -> dict[str, str]:
    """The reference: the reader as it was before the compact file (search/dictionaries.py,
    `Dictionary.read`, commit 42eb353), word -> senses joined by "\\n", translations by "\\t"."""
    def number(text):
        n = 0
        for c in text:
            n = n * 64 + _B64[c]
        return n

    entries = []
    with open(index, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3 and " " not in parts[0] and not parts[0].startswith("00database"):
                entries.append((number(parts[1]), number(parts[2]), parts[0].lower()))
    entries.sort()
    data = index.with_suffix(".dict.dz")
    data = data if data.is_file() else index.with_suffix(".dict")
    found: dict[str, list[str]] = {}
    with (gzip.open(data, "rb") if data.suffix == ".dz" else open(data, "rb")) as f:
        at, last, body = 0, (-1, -1), b""
        for offset, length, word in entries:
            if (offset, length) != last:
                if offset < at:
                    continue
                if offset > at:
                    f.seek(offset)
                body, at, last = f.read(length), offset + length, (offset, length)
            lines = body.split(b"\n", 2)
            terms = translation_terms(lines[1].decode("utf-8", "replace")) if len(lines) > 1 else []
            if terms:
                found.setdefault(word, []).append("\t".join(terms[:KEEP]))
    return {word: "\n".join(senses) for word, senses in found.items()}


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    """A cache folder of the test's own, every dictionary through its compact file, nothing opened yet."""
    monkeypatch.setenv("AUTOFILL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(dictionary_cache, "COMPACT_FROM", 0)
    monkeypatch.setattr(dictionary_cache, "_open", {})
    return tmp_path / "cache" / "dictionaries"


def reopened(index: Path) -> Dictionary:
    """The dictionary as the next process opens it."""
    dictionary_cache._open.clear()
    return open_dictionary(index)


GERMAN = [
    ("Ziel", "bourn <n>, bourne <n> [obs.]"),
    ("ziel", "[mil.] target <n>"),
    ("Ziel ", "objective <n>, goal <n>, aim <n>"),
    ("ZIEL", "finishing line <n>, finish <n>, end <n>"),
    ("Emissionen", "emissions"),
    ("Klima", "climate <n>"),
    ("Risiken", "risks"),
    ("Wasser", "water <n>"),
    ("Nichts", "   Synonym: {Beispiel}"),
    ("Ziel erreichen", "achieve a target"),
]


def test_the_compact_file_gives_what_the_whole_read_gave(tmp_path, cache, monkeypatch):
    index = write_dictd(tmp_path / "dictd", "freedict-deu-eng", GERMAN, shared={"Emission": "Emissionen"})
    first = open_dictionary(index)
    assert compact_path(index).parent == cache and compact_path(index).is_file()
    monkeypatch.setattr(dictionary_cache, "read_senses", lambda index: pytest.fail("read whole again"))
    again = reopened(index)
    reference = Dictionary(index, whole_read(index))
    words = ["ziel", "Ziel", "ZIEL", "emission", "Emissionen", "klima", "nichts", "ziel erreichen", "fehlt", ""]
    for d in (first, again):
        assert [d.senses(w) for w in words] == [reference.senses(w) for w in words]
        assert [w in d for w in words] == [w in reference for w in words]
    assert again.senses("ziel") == [["bourn", "bourne"], ["target"], ["finishing line", "finish"]]
    text = "Emissionen und Klimarisiken: Ziel für Wasser"
    assert translate_query(text, again, {"und", "für"}, lambda c: 0.0) == \
        translate_query(text, reference, {"und", "für"}, lambda c: 0.0) == "emissions climate risks bourn water"


def test_an_english_french_dictionary_the_other_way(tmp_path, cache):
    index = write_dictd(tmp_path / "dictd", "freedict-eng-fra", [
        ("emissions", "émissions <f>"), ("target", "objectif <m>, cible <f>, but <m>"), ("water", "eau <f>")])
    reference = Dictionary(index, whole_read(index))
    text = "Water emissions target"
    assert translate_query(text, reopened(index), set(), lambda c: 0.0) == \
        translate_query(text, reference, set(), lambda c: 0.0) == "eau émissions objectif"


def test_a_changed_dictionary_is_read_again(tmp_path, cache):
    folder = tmp_path / "dictd"
    index = write_dictd(folder, "freedict-deu-eng", [("Wasser", "water <n>")])
    assert open_dictionary(index).senses("wasser") == [["water"]]
    write_dictd(folder, "freedict-deu-eng", [("Wasser", "water <n>, aqua <n>"), ("Abfall", "waste <n>")])
    data = folder / "freedict-deu-eng.dict.dz"
    os.utime(data, ns=(data.stat().st_atime_ns, data.stat().st_mtime_ns + 1_000_000_000))
    changed = reopened(index)
    assert changed.senses("wasser") == [["water", "aqua"]] and changed.senses("abfall") == [["waste"]]
    assert len(list(cache.iterdir())) == 1  # replaced in place, not one file more


@pytest.mark.parametrize("damage", ["not a database", "truncated"])
def test_a_damaged_compact_file_is_made_again_with_one_warning(tmp_path, cache, caplog, damage):
    index = write_dictd(tmp_path / "dictd", "freedict-deu-eng", GERMAN * 40)
    open_dictionary(index)
    path = compact_path(index)
    data = path.read_bytes()
    path.write_bytes(b"these are not the pages of a database" * 200 if damage == "not a database"
                     else data[: len(data) // 2])
    with caplog.at_level(logging.WARNING):
        again = reopened(index)
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "damaged" in warnings[0] and str(path) in warnings[0]
    assert again.senses("ziel") == Dictionary(index, whole_read(index)).senses("ziel")
    caplog.clear()
    reopened(index)
    assert not caplog.records  # made again: whole from now on


def test_a_cache_folder_that_cannot_be_written_reads_the_dictionary_whole(tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("AUTOFILL_CACHE_DIR", str(blocker))
    monkeypatch.setattr(dictionary_cache, "COMPACT_FROM", 0)
    monkeypatch.setattr(dictionary_cache, "_open", {})
    index = write_dictd(tmp_path / "dictd", "freedict-deu-eng", GERMAN)
    with caplog.at_level(logging.WARNING):
        d = open_dictionary(index)
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "AUTOFILL_CACHE_DIR" in warnings[0]
    assert d.senses("ziel") == Dictionary(index, whole_read(index)).senses("ziel")


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("AUTOFILL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert dictionary_cache.cache_folder() == tmp_path / "xdg" / "autofill" / "dictionaries"
    monkeypatch.setenv("AUTOFILL_CACHE_DIR", str(tmp_path / "mine"))
    assert dictionary_cache.cache_folder() == tmp_path / "mine" / "dictionaries"


# Words and questions from the development questionnaires (benchmarks/devsets/bhp_de, bhp_expert_fr) and
# the catalogue's German and French terms: inflected forms, compounds, hyphens, figures, names.
GERMAN_TEXTS = [
    "Hat das Unternehmen Netto-Null-Ziele für Scope-1- und Scope-2-Emissionen?",
    "Welche Zwischenziele (2030) zur Emissionsminderung hat sich das Unternehmen gesetzt?",
    "Wie hoch waren die berichteten Scope-3-THG-Emissionen des Unternehmens im Geschäftsjahr 2023?",
    "Wasserentnahme, Abfallaufkommen, Biodiversität und Klimarisiken der Lieferkette",
    "Vergütung der Führungskräfte, interne CO2-Bepreisung, Dekarbonisierung, Wesentlichkeitsanalyse",
]
FRENCH_TEXTS = [
    "L'entreprise a-t-elle des objectifs de zéro émission nette pour ses émissions de scope 1 et 2 ?",
    "Quelle est la consommation d'eau et la production de déchets de l'entreprise en 2023 ?",
    "Risques climatiques, biodiversité, rémunération des dirigeants, chaîne d'approvisionnement",
]


@pytest.mark.slow  # reads FreeDict's German-English dictionary whole, twice (about 20 s)
@pytest.mark.parametrize("language, texts", [("de", GERMAN_TEXTS), ("fr", FRENCH_TEXTS)])
def test_installed_dictionaries_translate_as_the_whole_read_did(cache, language, texts):
    index = find("/usr/share/dictd", language, "en")
    if index is None:
        pytest.skip(f"FreeDict's {language}-en dictionary is not installed (scripts/install_dictionaries.sh)")
    reference = Dictionary(index, whole_read(index))
    open_dictionary(index)
    compact = reopened(index)
    assert compact_path(index).is_file()
    headwords = list(reference._senses)[::997]  # and every 997th headword of the dictionary
    words = sorted({w.lower() for t in texts for w in t.replace("-", " ").split()} | set(headwords))
    assert [compact.senses(w) for w in words] == [reference.senses(w) for w in words]
    for similarity in (lambda c: 0.0, lambda c: -len(c)):  # first sense; the shortest candidates
        assert [translate_query(t, compact, stop_words(language), similarity, per_word=2) for t in texts] == \
            [translate_query(t, reference, stop_words(language), similarity, per_word=2) for t in texts]
