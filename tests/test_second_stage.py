"""The second stage (search/second_stage.py): page evidence over a real store, RRF of the signals' orders,
the choice declared once (choices.SECOND_STAGES, retrieval.second_stage) and resolved by the plan, and the
CLI choosing it: the run's first line, `autofill config` and `run --json`'s plan, in fresh processes."""

from __future__ import annotations

import pytest

from autofill import choices
from autofill.search import second_stage as ss
from autofill.search.retrieval import retrieve
from autofill.errors import InputError
from autofill.plan import resolve_plan
from autofill.records import Passage, QuestionRow
from autofill.settings import Settings, validate
from tests.answer_helpers import COMPANY, FACTS, SAMPLE, copied_workspace


def _passage(i: int, text: str, page: int | None = None) -> Passage:
    return Passage(chunk_id=f"c{i}", file_name="r.pdf", page_start=page or i, page_end=page or i, section="",
                   text=text, rank=i)


def test_coverage_weighs_rare_terms_and_the_question_over_the_explanation():
    weights = {"scope": 1.0, "emiss": 1.0, "kiln": 0.4}
    pages = [{"scope", "emiss"}, {"emiss", "kiln"}, {"emiss"}, set()]
    cov = ss.coverage(weights, pages)
    assert cov[0] > cov[1] > cov[2] > cov[3] == 0.0
    assert ss.coverage(weights, [set(weights)]) == [pytest.approx(1.0)]


def test_fusion_keeps_the_set_and_breaks_ties_by_the_first_stage():
    cands = [_passage(i, f"text {i}") for i in range(1, 5)]
    # The first stage's order and a signal that puts the last candidate first: it moves up, none is lost.
    fused = ss.fuse_orders(cands, [[0, 1, 2, 3], [3, 0, 1, 2]], k=20)
    assert [p.chunk_id for p in fused] == ["c1", "c4", "c2", "c3"]
    assert [p.rank for p in fused] == [1, 2, 3, 4]
    assert ss.order_by([0.5, 0.9, 0.5]) == [1, 0, 2]  # ties keep the first stage's order
    # Two opposite orders: the ends tie above the middle, each tie kept in the first stage's order.
    assert [p.chunk_id for p in ss.fuse_orders(cands, [[0, 1, 2, 3], [3, 2, 1, 0]], k=20)] == ["c1", "c4", "c2", "c3"]


def test_tables_keep_their_first_stage_places_and_prose_is_reordered_around_them():
    assert ss.keep_table_places([3, 0, 1, 2], [False, True, False, False]) == [3, 1, 0, 2]
    assert ss.keep_table_places([2, 1, 0], [True, True, True]) == [0, 1, 2]  # all tables: the first stage's
    assert ss.keep_table_places([2, 1, 0], [False] * 3) == [2, 1, 0]  # no table: the fused order
    cands = [_passage(i, f"text {i}") for i in range(1, 5)]
    cands[1] = Passage(**{**cands[1].__dict__, "has_table": True})  # c2: a KPI table, second in the first stage
    # A signal that ranks the table last and prose c4 first: c4 rises, c2 stays second.
    fused = ss.fuse_orders(cands, [[0, 1, 2, 3], [3, 0, 2, 1]], k=20)
    assert [p.chunk_id for p in fused] == ["c1", "c2", "c4", "c3"] and [p.rank for p in fused] == [1, 2, 3, 4]
    # Without the table flag the same signals move c2 down (the rule is what holds it).
    plain = ss.fuse_orders([_passage(i, f"text {i}") for i in range(1, 5)], [[0, 1, 2, 3], [3, 0, 2, 1]], k=20)
    assert [p.chunk_id for p in plain].index("c2") > 1


def test_rows_across_languages_keep_the_first_stages_order():
    """The signals' models read English: a German row, or an English row against German documents, is left
    as the first stage ordered it; an English row (or one of unknown language) is reordered."""
    from dataclasses import replace

    cands = [_passage(i, f"text {i}") for i in range(1, 4)]
    calls = []
    ss.SIGNALS["test-signal"] = lambda store, row, candidates: calls.append(row.language) or [0.0, 0.0, 1.0]
    try:
        choice = choices.SecondStageChoice("t", ("first", "test-signal"), help="")
        row = QuestionRow("S", 1, "What were Scope 1 emissions?")
        settings = Settings()
        assert ss.second_stage(settings, choice, None, replace(row, language="de"), cands, ("en",)) == cands
        assert ss.second_stage(settings, choice, None, replace(row, language="en"), cands, ("en", "de")) == cands
        assert calls == []
        moved = ss.second_stage(settings, choice, None, replace(row, language="en"), cands, ("en",))
        assert [p.chunk_id for p in moved] != [p.chunk_id for p in cands] and calls == ["en"]
        assert ss.second_stage(settings, choice, None, row, cands) != cands  # unknown languages: read
    finally:
        del ss.SIGNALS["test-signal"]


def test_only_the_first_candidates_to_the_depth_are_read_and_reordered():
    cands = [_passage(i, f"text {i}") for i in range(1, 6)]
    read: list[int] = []
    ss.SIGNALS["test-signal"] = lambda store, row, head: read.append(len(head)) or [0.0] * (len(head) - 1) + [1.0]
    try:
        choice = choices.SecondStageChoice("t", ("test-signal",), help="")
        settings = Settings()
        settings.retrieval.second_stage_depth = 3
        out = ss.second_stage(settings, choice, None, QuestionRow("S", 1, "Q?"), cands)
        assert read == [3] and [p.chunk_id for p in out] == ["c3", "c1", "c2", "c4", "c5"]
        assert [p.rank for p in out[3:]] == [4, 5]  # the rest keep their places and ranks
        settings.retrieval.second_stage_depth = 0  # all of them
        ss.second_stage(settings, choice, None, QuestionRow("S", 1, "Q?"), cands)
        assert read == [3, 5]
    finally:
        del ss.SIGNALS["test-signal"]
    bad = Settings()
    bad.retrieval.second_stage_depth = -1
    with pytest.raises(InputError, match="second_stage_depth"):
        validate(bad)


def test_each_cross_encoder_signal_reads_its_own_query_and_colbert_reads_the_search_words():
    row = QuestionRow("Finance", 1, "Please state the capital expenditure for FY2022.",
                      form_of_answer="Number in USD millions", explanation="Include leases.")
    queries = {name: query(row) for name, query in ss.CROSS_ENCODER_QUERIES.items()}
    assert queries["cross-encoder"] == "Please state the capital expenditure for FY2022.\nNumber in USD millions\nInclude leases."
    assert queries["cross-encoder-question"] == "Please state the capital expenditure for FY2022."
    search = queries["cross-encoder-search"]
    assert search == ss.search_words(row)  # one query for ColBERT and this cross-encoder signal
    assert "purchases of property, plant and equipment" in search  # the report-side synonym added
    assert "please" not in search.lower() and "millions" not in search.lower() and "leases" not in search.lower()
    assert set(ss.CROSS_ENCODER_QUERIES) <= set(ss.SIGNALS)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return copied_workspace(tmp_path_factory.mktemp("ws"))


def test_page_evidence_reads_the_whole_page_from_the_store(workspace):
    settings, emb = workspace
    from autofill.store.reading import open_for_reading

    store = open_for_reading(settings, COMPANY)
    fact = next(f for f in FACTS if "renewable" in f.question)
    row = QuestionRow("Climate", 2, fact.question, fact.form)
    candidates = retrieve(settings, store, emb, row, "hybrid")
    scores = ss.page_scores(store, row, candidates)
    assert len(scores) == len(candidates) and all(0.0 <= s <= 1.0 for s in scores)
    best = candidates[max(range(len(scores)), key=scores.__getitem__)]
    assert (best.file_name, best.page_start) == (SAMPLE, fact.page), [(c.page_start, s) for c, s in zip(candidates, scores)]
    # A passage that is not its page's whole text: the page's other passages count too.
    only_first_words = [Passage(**{**c.__dict__, "text": c.text[:40]}) for c in candidates]
    assert ss.page_scores(store, row, only_first_words) == pytest.approx(scores)


def test_colbert_and_pages_reorder_offline_and_none_leaves_the_order(workspace):
    pytest.importorskip("onnxruntime")
    settings, emb = workspace
    from autofill.store.reading import open_for_reading

    store = open_for_reading(settings, COMPANY)
    fact = next(f for f in FACTS if "Scope 1 emissions in FY2024" in f.question)
    row = QuestionRow("Climate", 4, fact.question, fact.form)
    candidates = retrieve(settings, store, emb, row, "hybrid")
    assert ss.second_stage(settings, choices.SECOND_STAGES["none"], store, row, candidates) == candidates
    both = choices.SecondStageChoice("colbert+pages", ("first", "colbert", "pages"), help="")
    out = ss.second_stage(settings, both, store, row, candidates)
    assert sorted(p.chunk_id for p in out) == sorted(p.chunk_id for p in candidates)
    assert [p.rank for p in out] == list(range(1, len(out) + 1))
    assert out[0].page_start in (3, 4)  # the emissions table (pp. 3-4) comes first
    assert out != candidates  # the fake embedder's first stage did not put it first


def test_the_choice_is_one_row_validated_and_resolved_by_the_plan(tmp_path):
    s = Settings(workspace=tmp_path)
    assert s.retrieval.second_stage in choices.SECOND_STAGES
    s.retrieval.second_stage = "colbert"
    validate(s)
    plan = resolve_plan(s)
    assert plan.second_stage.name == "colbert" and plan.to_json()["second_stage"] == "colbert"
    assert "second stage colbert" in plan.first_line()
    assert ("second stage", "colbert", "") in plan.describe()
    s.retrieval.second_stage = "bogus"
    with pytest.raises(InputError, match="retrieval.second_stage 'bogus'.*colbert"):
        validate(s)
    s.retrieval.second_stage = "none"
    assert "second stage" not in resolve_plan(s).first_line()


@pytest.mark.slow
def test_the_cli_chooses_it_first_line_config_and_run_json(tmp_path, llm_server):
    from tests.rows_helpers import QUESTIONS, cli, company_reports, env_for, last_json, questionnaire

    company = "Stage Co"
    questionnaire(tmp_path / "q.xlsx")
    company_reports(tmp_path / "reports", company, 61, 4200)
    env = {**env_for(llm_server, offline=True), "AUTOFILL_RETRIEVAL__SECOND_STAGE": "colbert"}
    assert cli(tmp_path, env, "ingest", "--company", company, "reports").returncode == 0
    config = last_json(cli(tmp_path, env, "config", "--json"))
    assert config["resolved"]["second stage"]["value"] == "colbert"
    assert "AUTOFILL_RETRIEVAL__SECOND_STAGE" in config["resolved"]["second stage"]["why"]
    proc = cli(tmp_path, env, "run", "--company", company, "--questionnaire", "q.xlsx")
    assert proc.returncode == 0, proc.stderr
    assert "retrieval hybrid, second stage colbert, reranker none" in (proc.stderr + proc.stdout).splitlines()[0], proc.stderr
    result = last_json(cli(tmp_path, env, "run", "--company", company, "--questionnaire", "q.xlsx", "--fresh", "--json"))
    assert result["plan"]["second_stage"] == "colbert" and result["drafted"] == len(QUESTIONS)
    bad = cli(tmp_path, {**env, "AUTOFILL_RETRIEVAL__SECOND_STAGE": "bogus"}, "config")
    assert bad.returncode == 2 and "retrieval.second_stage" in bad.stderr
