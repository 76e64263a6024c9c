"""search/searches.py: a row's first-stage searches as data, built once (retrieval.searches_of) and run by
retrieve in that order; the declared list that Run info and `autofill config` print."""

from __future__ import annotations

import json
import re

import pytest

from autofill.plan import resolve_plan
from autofill.records import QuestionRow
from autofill.run_identity import declare
from autofill.search.query import lexical_query, term_names
from autofill.search.retrieval import build_query, searches_of, translated_row
from autofill.search.searches import Index, QueryPart, SearchKind, declared_searches, lines
from autofill.settings import Settings

ROW = QuestionRow("S", 3, "How much water was withdrawn?", form_of_answer="GL", explanation="Total withdrawal.")
FRENCH = QuestionRow("S", 4, "Quel est le fonds de roulement ?", form_of_answer="EUR", language="fr")


def _settings(tmp_path, **retrieval) -> Settings:
    s = Settings(workspace=tmp_path)
    for name, value in retrieval.items():
        setattr(s.retrieval, name, value)
    return s


def test_a_hybrid_row_is_searched_densely_then_by_keywords_for_each_part(tmp_path):
    s = _settings(tmp_path, keyword_weight=0.5)
    found = searches_of(s, ROW, "hybrid")
    assert [s.line() for s in found] == ["dense store row weight 1", "dense store question weight 1",
                                         "keyword store row weight 0.5", "keyword store question weight 0.5"]
    question = QuestionRow("S", 3, ROW.question)
    assert [f.text for f in found] == [build_query(ROW), ROW.question, lexical_query(ROW, expand=True),
                                       lexical_query(question, expand=True)]
    # A row that is only its question is searched once a kind; `query_parts` = "row" searches the whole row.
    assert [f.query_part for f in searches_of(s, question, "hybrid")] == [QueryPart.QUESTION, QueryPart.QUESTION]
    assert [f.query_part for f in searches_of(_settings(tmp_path, query_parts="row"), ROW, "hybrid")] == \
        [QueryPart.ROW, QueryPart.ROW]
    # Dense mode: one search, which retrieve runs without a fusion.
    assert [f.line() for f in searches_of(_settings(tmp_path, query_parts="row"), ROW, "dense")] == \
        ["dense store row weight 1"]


def test_hyde_takes_the_first_dense_search_and_extra_queries_join_in_pairs(tmp_path):
    s = _settings(tmp_path)
    found = searches_of(s, ROW, "hyde+hybrid", hyde_passage="Water withdrawal was 12.4 GL.",
                        extra_queries=["water withdrawal volume", "  "])
    assert [(f.kind, f.query_part) for f in found] == [
        (SearchKind.DENSE, QueryPart.HYDE), (SearchKind.DENSE, QueryPart.QUESTION),
        (SearchKind.KEYWORD, QueryPart.ROW), (SearchKind.KEYWORD, QueryPart.QUESTION),
        (SearchKind.DENSE, QueryPart.EXTRA), (SearchKind.KEYWORD, QueryPart.EXTRA)]
    assert found[0].text == "Water withdrawal was 12.4 GL." and found[-1].text == "water withdrawal volume"
    # Without a passage (no model) HyDE is the row's own text.
    assert searches_of(s, ROW, "hyde+hybrid")[0].query_part is QueryPart.ROW


def test_a_translated_row_is_searched_by_keywords_only_as_its_translation(tmp_path):
    s = _settings(tmp_path, keyword_weight=0.5)
    found = searches_of(s, FRENCH, "hybrid", translation="What is the working capital?",
                        index=Index.MULTILINGUAL)
    assert [f.line() for f in found] == [
        "dense multilingual row weight 1", "dense multilingual question weight 1",
        "dense multilingual translation weight 1", "dense multilingual terms weight 1",
        "keyword store translation weight 1"]  # weighs as the keyword searches of both parts
    assert found[3].text == " ".join(term_names(FRENCH)) and "working capital" in found[3].text
    english = lexical_query(translated_row(FRENCH, "What is the working capital?"), expand=True,
                            source=FRENCH)
    assert (found[-1].text, found[-1].language) == (english, "")
    # The row's own keyword searches ask in its language.
    assert {f.language for f in searches_of(s, FRENCH, "hybrid") if f.kind is SearchKind.KEYWORD} == {"fr"}


def test_an_unknown_mode_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown retrieval mode 'fuzzy'"):
        searches_of(_settings(tmp_path), ROW, "fuzzy")


def test_the_declared_searches_are_a_rows_under_the_runs_settings(tmp_path):
    found = declared_searches("hyde+hybrid", "both", 0.3, True, hyde=True, extra_queries=3,
                              index=Index.CENTRED, translated=True)
    assert lines(found) == [
        "1. dense multilingual centred hyde weight 1", "2. dense multilingual centred question weight 1",
        *[line for i in range(3) for line in (f"{3 + 2 * i}. dense multilingual centred extra query weight 1",
                                              f"{4 + 2 * i}. keyword store extra query weight 0.3")],
        "9. dense multilingual centred translation weight 1", "10. dense multilingual centred terms weight 1",
        "11. keyword store translation weight 0.6"]


def test_run_info_records_the_searches_one_line_a_search(tmp_path):
    s = _settings(tmp_path, keyword_weight=0.5)
    s.retrieval.mode = "hybrid"
    info = declare(s, resolve_plan(s, chat=None)).run_info()
    assert info["searches"].splitlines() == ["1. dense store row weight 1", "2. dense store question weight 1",
                                             "3. keyword store row weight 0.5", "4. keyword store question weight 0.5"]
    assert info["searches across languages"].splitlines()[-1] == "5. keyword store translation weight 1"
    s.retrieval.multilingual_index = False
    assert "searches across languages" not in declare(s, resolve_plan(s, chat=None)).run_info()


def test_config_prints_a_row_a_search(tmp_path):
    from tests.test_settings import _autofill

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "autofill.toml").write_text('[retrieval]\nmode = "dense"\nquery_parts = "question"\n'
                                      'multilingual_index = false\n')
    out = _autofill("--workspace", str(ws), "config", "--json")
    assert out.returncode == 0, out.stderr
    resolved = json.loads(out.stdout)["resolved"]
    assert [(k, v["value"]) for k, v in resolved.items() if k.startswith("search ")] == \
        [("search 1", "dense store question weight 1")]
    out = _autofill("--workspace", str(ws), "config")
    assert out.returncode == 0, out.stderr
    assert re.search(r"^  search 1 +dense store question weight 1  \(a row in its reports' language", out.stdout, re.M)
