"""Pages that answer nothing rank last (issue 47; autofill/search/boilerplate.py, search/boilerplate_pages.py).

A generated report whose inside cover names every topic of the questionnaire ("prepared in accordance
with", "integrated into other parts of the Annual Report") is ingested into a real store and the real CLI
answers a questionnaire of several topics offline: no row cites the inside cover, while a row that asks
about the report's basis of preparation still may. The scores are kept beside the store (store/derived.py),
a damaged file is rebuilt once with one warning, and `forget` removes it. The pure signals are checked on
page texts of the kinds real reports print."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl

from autofill.search.boilerplate import Kind, PageText, asked_kinds, rank_last, score_page, score_pages
from autofill.records import Passage
from tests.pdf_factory import make_pdf
from tests.rows_helpers import cli, env_for, last_json
from tests.workbook_builders import build_questionnaire

COMPANY = "Calder"
TOPICS = [
    ("Water", "What volume of water did the company withdraw in FY2024?", "withdrew 4.2 million cubic metres of water"),
    ("Emissions", "What were the company's gross Scope 1 greenhouse gas emissions in FY2024?",
     "gross Scope 1 greenhouse gas emissions were 1.31 Mt CO2e"),
    ("Energy", "What share of electricity consumption came from renewable electricity in FY2024?",
     "renewable electricity supplied 38% of electricity consumption"),
    ("Safety", "What was the total recordable injury frequency rate in FY2024?",
     "total recordable injury frequency rate was 2.7 per million hours worked"),
    ("People", "How many employees did the company have at the end of FY2024?", "had 5,120 employees"),
]
BASIS = ("Reporting", "In accordance with which frameworks and standards has the report been prepared "
                      "(basis of preparation)?")


def _report(path: Path, year: str = "FY2024") -> Path:
    """Cover, inside cover naming every topic (and no figure), one page per topic stating its figure in a
    sentence among site narrative, and a back page."""
    inside = ("This Climate and Sustainability Report of Calder Minerals has been prepared in accordance with the "
              "GRI Standards and the TCFD recommendations, and it is integrated into other parts of the Annual Report. "
              "It covers " + "; ".join(q.rstrip("?").lower().replace("what ", "").replace("how many ", "")
                                        for _, q, _ in TOPICS)
              + ". Unless otherwise stated, this report covers the reporting period FY2024 and all operated sites. "
                "Registered office: 1 Quarry Lane, Leeds. All rights reserved.")
    pages = [[("h1", "Calder Minerals"), ("p", f"Climate and Sustainability Report {year}")],
             [("h2", "About this report"), ("p", inside), ("p", inside)]]
    for section, question, fact in TOPICS:
        pages.append([("h1", section),
                      ("p", f"Our sites keep improving how {section.lower()} is managed, site by site. " * 4),
                      ("p", f"In FY2024 Calder Minerals {fact}, as measured at every operated site."),
                      ("p", "Site teams report monthly to the executive committee and plans are reviewed yearly. " * 4)])
    pages.append([("h1", "Calder Minerals"), ("p", "calder.example")])
    return make_pdf(path, pages)


def _questionnaire(path: Path, basis: bool = True) -> Path:
    questions = [(s, q, "Text", False) for s, q, _ in TOPICS] + ([(*BASIS, "Text", False)] if basis else [])
    return build_questionnaire(path, questions=questions, extras=False)


def _rows(output: str) -> list[dict]:
    ws = openpyxl.load_workbook(output, read_only=True)["Questionnaire"]
    values = [list(r) for r in ws.iter_rows(values_only=True)]
    head = next(i for i, r in enumerate(values) if "Question" in r and "Sources" in r)
    cols = values[head]
    return [dict(zip(cols, r)) for r in values[head + 1:] if r[cols.index("Question")]]


def _run(workspace: Path, env, *extra: str) -> list[dict]:
    proc = cli(workspace, env, "run", "--company", COMPANY, "--questionnaire", "q.xlsx", "--json", "--fresh", *extra)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return _rows(last_json(proc)["output"])


def test_no_row_cites_the_inside_cover_unless_it_asks_about_the_report(tmp_path, llm_server):
    report = _report(tmp_path / "Calder Report 2024.pdf")
    _questionnaire(tmp_path / "q.xlsx")
    env = env_for(llm_server, offline=True, AUTOFILL_EMBEDDING__PROVIDER="local")
    proc = cli(tmp_path, env, "ingest", "--company", COMPANY, str(report))
    assert proc.returncode == 0, proc.stderr[-2000:]

    rows = _run(tmp_path, env)
    by_question = {r["Question"]: r for r in rows}
    inside = f"{report.name} p. 2"
    for section, question, fact in TOPICS:
        sources = str(by_question[question]["Sources"] or "")
        assert inside not in sources, (question, sources)
        assert sources.startswith(f"{report.name} p. {3 + [t[0] for t in TOPICS].index(section)}"), (question, sources)
    assert inside in str(by_question[BASIS[1]]["Sources"] or ""), by_question[BASIS[1]]

    # The scores were kept beside the store, with each page's reason.
    (kept,) = (tmp_path / "vectordb" / ".boilerplate").glob("*.json")
    pages = {(f, n): (score, kinds) for f, n, score, kinds, _ in json.loads(kept.read_text())["pages"]}
    assert pages[(report.name, 2)][0] >= 0.5 and "about this report" in pages[(report.name, 2)][1]
    assert all(pages[(report.name, n)][0] < 0.5 for n in range(3, 3 + len(TOPICS)))

    # A damaged file is rebuilt once, with one warning naming it; the rows come out the same.
    kept.write_text('{"version": 1, "documents": {}, "pages": [["x"]]', encoding="utf-8")
    proc = cli(tmp_path, env, "run", "--company", COMPANY, "--questionnaire", "q.xlsx", "--json", "--fresh")
    assert proc.returncode == 0 and proc.stderr.count("boilerplate pages file") == 1, proc.stderr[-2000:]
    assert [r["Sources"] for r in _rows(last_json(proc)["output"])] == [r["Sources"] for r in rows]
    assert json.loads(kept.read_text())["pages"]

    # With the setting off the inside cover is cited again, as before issue 47 (the test's own control).
    off = _run(tmp_path, {**env, "AUTOFILL_RETRIEVAL__BOILERPLATE_LAST": "false"})
    assert any(inside in str(r["Sources"] or "") for r in off if r["Question"] != BASIS[1]), \
        [r["Sources"] for r in off]

    proc = cli(tmp_path, env, "forget", "--company", COMPANY, "--yes")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not kept.exists()


# ---------------------------------------------------------------- the signals, on page texts as reports print them

CONTENTS = """Contents
Chief Executive Officer introduction
2
Our position on climate change
3
About this Report
4
1. Governance
9
1.1 Role and responsibilities of the Board
9
2. Strategy and targets
12
2.1 Portfolio analysis
13
3. Risk management
36
Glossary
42"""

FIGURES = """Operational GHG emissions
In FY2024 our operational (Scope 1 and 2) GHG emissions were 15.8 Mt CO2-e, 10 per cent below FY2023.
Diesel contributed 6.3 Mt (40%), electricity 6.3 Mt (40%), fugitive emissions 1.9 Mt (12%) and natural
gas 1.1 Mt (7%). Our medium-term target is a 30 per cent reduction by FY2030 from FY2020 levels, and the
FY2024 result keeps us on track: four renewable power purchase agreements started during the year."""

LEGAL = """Forward-looking statements
This report contains forward-looking statements, including statements regarding plans, strategies and
objectives of management. Forward-looking statements are not guarantees of future performance and actual
results may differ materially. Readers should not place undue reliance on them; no representation is made
as to their accuracy. Except as required by law, we undertake no obligation to update them."""

GLOSSARY = """Glossary
Scope 1: Direct emissions from sources owned or controlled by the company.
Scope 2: Indirect emissions from purchased electricity, steam, heat and cooling.
Scope 3: All other indirect emissions in the value chain.
Net zero: Emissions reduced as far as possible and the rest balanced by removals.
Offset: A reduction or removal of emissions used to compensate for emissions elsewhere.
Paris-aligned: Consistent with the goals of the Paris Agreement.
PPA: Power purchase agreement, a long-term contract to buy electricity.
TCFD: Task Force on Climate-related Financial Disclosures."""

INDEX = """GRI content index
| Disclosure | Title | Page |
| GRI 305-1 | Direct (Scope 1) GHG emissions | 24 |
| GRI 305-2 | Energy indirect (Scope 2) GHG emissions | 24 |
| GRI 305-3 | Other indirect (Scope 3) GHG emissions | 30-31 |
| GRI 303-3 | Water withdrawal | 40 |
| GRI 403-9 | Work-related injuries | 44 |
| GRI 2-7 | Employees | 50 |"""


def _page(text: str, page: int = 10, pages: int = 40, name: str = "R.pdf") -> PageText:
    return PageText(name, page, text, pages)


def test_each_kind_of_page_is_recognised_with_its_reason_and_a_page_of_figures_is_not():
    for text, kind in ((CONTENTS, Kind.CONTENTS), (LEGAL, Kind.DISCLAIMER), (GLOSSARY, Kind.GLOSSARY),
                       (INDEX, Kind.INDEX)):
        score = score_page(_page(text))
        assert score.boilerplate and kind in score.kinds, (kind, score)
        assert score.reason()
    for page in (3, 10, 40):
        assert not score_page(_page(FIGURES, page=page)).boilerplate, page
    cover = score_page(_page("Climate Change Report 2024", page=1))
    assert cover.boilerplate and cover.kinds == (Kind.COVER,)
    assert not score_page(_page("Climate Change Report 2024", page=20)).boilerplate  # a short page mid-report
    for fact in ("Acme sustainability report FY2024. Renewable electricity made up 40% of its consumption.",
                 "People. At the end of FY2024 Acme had 1,200 employees.",
                 "We have a policy against child labour. It applies to all suppliers. We audit them yearly."):
        for page in (1, 40):  # a short first or last page that states a fact is no cover
            assert not score_page(_page(fact, page=page)).boilerplate, (fact, page)


def test_a_page_repeated_across_the_companys_reports_counts_only_with_another_signal():
    shared = LEGAL + "\nRegistered office: 1 Quarry Lane, Leeds, United Kingdom. " + "Calder Group plc. " * 10
    pages = [_page(shared, 3, 40, "A.pdf"), _page(shared, 3, 30, "B.pdf"),
             _page(FIGURES, 12, 40, "A.pdf"), _page(FIGURES, 9, 30, "B.pdf")]
    scores = {(s.file_name, s.page): s for s in score_pages(pages)}
    assert Kind.REPEATED in scores[("A.pdf", 3)].kinds and scores[("B.pdf", 3)].boilerplate
    assert not scores[("A.pdf", 12)].boilerplate and not scores[("B.pdf", 9)].boilerplate  # a table both print


def _p(page: int) -> Passage:
    return Passage(chunk_id=f"c{page}", file_name="R.pdf", page_start=page, page_end=page, section="", text="t")


def test_boilerplate_ranks_last_unless_asked_and_leaves_the_pool_when_enough_others_remain():
    scores = {("R.pdf", 2): score_page(_page(LEGAL + "\n" + "This report has been prepared in accordance with "
                                             "the GRI Standards. About this report: it covers the reporting period.",
                                             page=2))}
    assert {Kind.ABOUT, Kind.DISCLAIMER} <= set(scores[("R.pdf", 2)].kinds)
    pool = [_p(2), _p(5), _p(7), _p(9)]
    assert [p.page_start for p in rank_last(pool, scores, frozenset(), keep=6)] == [5, 7, 9, 2]
    assert [p.page_start for p in rank_last(pool, scores, frozenset(), keep=3)] == [5, 7, 9]
    asked = asked_kinds("What is the basis of preparation of the report?")
    assert [p.page_start for p in rank_last(pool, scores, asked, keep=3)] == [2, 5, 7, 9]
    assert Kind.DISCLAIMER in asked_kinds("Does the report include forward-looking statements?")
    assert not asked_kinds("What were gross Scope 1 emissions in FY2024?")


def test_scores_are_kept_per_document_and_detector_version_and_computed_again_when_either_changes(tmp_path, caplog):
    from autofill.ingest.pipeline import ingest_paths
    from autofill.search import boilerplate_pages
    from autofill.settings import Settings
    from autofill.store.chroma_store import open_store
    from tests.fakes import FakeEmbedder

    settings = Settings(workspace=tmp_path)
    emb = FakeEmbedder()
    assert ingest_paths(settings, COMPANY, [_report(tmp_path / "A.pdf")], embedder=emb).count("failed") == 0
    store = open_store(settings, COMPANY)
    scores = boilerplate_pages.page_scores(settings, store)
    assert scores[("A.pdf", 2)].boilerplate and not scores[("A.pdf", 3)].boilerplate
    (kept,) = (tmp_path / "vectordb" / ".boilerplate").glob("*.json")
    data = json.loads(kept.read_text())
    assert data["documents"]["\x00detector"] == boilerplate_pages.detector()

    # Scores kept by another version of the detector are computed again, silently.
    data["documents"]["\x00detector"] = "older"
    data["pages"] = [[f, n, 0.0, [], []] for f, n, *_ in data["pages"]]
    kept.write_text(json.dumps(data))
    boilerplate_pages._MEMO.clear()
    with caplog.at_level("WARNING"):
        again = boilerplate_pages.page_scores(settings, store)
    assert again[("A.pdf", 2)].boilerplate and not [r for r in caplog.records if r.levelname == "WARNING"]
    assert json.loads(kept.read_text())["documents"]["\x00detector"] == boilerplate_pages.detector()

    # A second report joins: its pages are scored too.
    ingest_paths(settings, COMPANY, [_report(tmp_path / "B.pdf", year="FY2025")], embedder=emb)
    store = open_store(settings, COMPANY)
    assert boilerplate_pages.page_scores(settings, store)[("B.pdf", 2)].boilerplate
