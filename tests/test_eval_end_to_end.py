"""`autofill eval` end to end on a generated company: the Northwind sample report (known facts on known
pages) plus a long filler report, ingested with the FakeEmbedder; a generated questionnaire and gold
key; offline runs (no LLM) scored, two configurations compared, an existing output re-scored."""

from __future__ import annotations

import json
import random

import openpyxl
import pytest
from click.testing import CliRunner

from autofill.evaluate.report import describe_text
from autofill.evaluate.runner import run_eval
from autofill.providers.base import Providers
from autofill.settings import load_settings
from tests.fakes import FakeEmbedder, RecordingReporter
from tests.pdf_factory import make_sample_company_pdf, make_text_pdf

COMPANY = "Northwind Metals"
SAMPLE = "northwind_sustainability_2024.pdf"
# (no, question, form, gold answer, type, [(page, evidence verbatim in the sample)])
QUESTIONS = [
    ("1", "Does the company have a net zero target for Scope 1 and Scope 2 emissions?", "Yes/No",
     "Yes. Net zero Scope 1 and Scope 2 emissions by 2050.", "yesno",
     [(2, "Northwind Metals has committed to net zero Scope 1 and Scope 2 emissions by 2050.")]),
    ("2", "Which board committee oversees climate-related risks and opportunities?", "Short text",
     "The Board Sustainability Committee, meeting four times a year.", "text",
     [(3, "The Board Sustainability Committee oversees climate-related risks and opportunities and meets four "
          "times a year.")]),
    ("3", "What share of electricity consumption was renewable electricity in FY2024?", "Percentage",
     "46% of electricity consumption in FY2024.", "number",
     [(5, "Renewable electricity made up 46% of our electricity consumption in FY2024.")]),
    ("4", "What was the total water withdrawal in FY2024?", "Number with unit",
     "12.4 GL in FY2024.", "number",
     [(5, "Total water withdrawal was 12.4 GL in FY2024.")]),
    ("5", "Does the company report biodiversity offsets?", "Yes/No", "Not disclosed.", "yesno", []),
]
_WORDS = ("haul road maintenance tyre fleet crusher conveyor tailings dam inspection seedling topsoil roster "
          "apprentice induction canteen rail siding port berth shiploader stockpile blending assay drill core "
          "survey drone mapping festival scholarship fencing signage procurement invoice warehouse pump valve").split()


def filler(pages: int = 24) -> list[str]:
    rng = random.Random(3)
    return [" ".join(f"Site {i} " + " ".join(rng.choice(_WORDS) for _ in range(12)) + "." for _ in range(9))
            for i in range(pages)]


@pytest.fixture(scope="module")
def company(tmp_path_factory):
    """A workspace with the Northwind store (FakeEmbedder), a questionnaire and a gold key."""
    from autofill.ingest.pipeline import ingest_paths

    root = tmp_path_factory.mktemp("eval")
    ws = root / "ws"
    ws.mkdir()
    docs = root / "docs"
    docs.mkdir()
    settings = load_settings(ws, environ={})
    embedder = FakeEmbedder()
    report = ingest_paths(settings, COMPANY, [make_sample_company_pdf(docs / SAMPLE),
                                              make_text_pdf(docs / "Operations Review.pdf", filler())],
                          embedder=embedder)
    assert report.count("failed") == 0

    questionnaire = root / "questionnaire.xlsx"
    wb = openpyxl.Workbook()
    sheet = wb.active
    sheet.title = "Questionnaire"
    sheet.append(["Climate questionnaire"])
    sheet.append([])
    sheet.append(["No.", "Question", "Form of answer", "Answer"])
    for no, question, form, *_ in QUESTIONS:
        sheet.append([no, question, form, None])
    wb.save(questionnaire)

    gold = root / "gold.json"
    gold.write_text(json.dumps([
        {"no": no, "question": q, "gold_answer": answer, "answer_type": kind,
         "gold": [{"file": SAMPLE, "page": page, "evidence": ev} for page, ev in facts]}
        for no, q, _, answer, kind, facts in QUESTIONS]))
    return {"root": root, "settings": settings, "providers": Providers(embedder=embedder),
            "questionnaire": questionnaire, "gold": gold}


def evidence_by_row(output):
    """{row: [(rank, file, page)]} straight from the Evidence sheet, to check the eval's plumbing."""
    wb = openpyxl.load_workbook(output, read_only=True)
    rows = list(wb["Evidence"].iter_rows(values_only=True))
    head = [str(h) for h in rows[0]]
    out: dict[int, list] = {}
    for r in rows[1:]:
        d = dict(zip(head, r))
        out.setdefault(int(d["Row"]), []).append((int(d["Rank"]), d["File"], int(str(d["Page"]).split("-")[0])))
    wb.close()
    return out


def test_offline_eval_scores_the_known_pages(company, tmp_path):
    result = run_eval(company["settings"], COMPANY, company["questionnaire"], company["gold"], k=6,
                      out_dir=tmp_path / "out", providers=company["providers"])
    data = result.to_json()
    for key in ("output", "questions", "k", "hit_at_k", "recall_at_k", "precision_at_k", "mrr", "ndcg_at_k",
                "passage_precision", "passage_recall", "passage_f1", "yesno_accuracy", "number_accuracy"):
        assert key in data, key
    assert "configs" not in data and "correctness" not in data  # one configuration, no judge offline
    assert data["questions"] == 5 and data["k"] == 6
    assert data["questions_without_gold_pages"] == 1
    (config,) = result.configs
    by_no = {q.number: q for q in config.questions}
    assert by_no["5"].hit_at_k is None and by_no["5"].gold_pages == 0
    # Each fact sits on one known page, and the offline hybrid retrieval's BM25 finds those words.
    evidence = evidence_by_row(config.output)
    for no, *_rest, facts in QUESTIONS[:4]:
        q = by_no[no]
        ranked = sorted(evidence[q.row])
        first = next((i for i, (_, f, p) in enumerate(ranked[:6], 1) if f == SAMPLE and p == facts[0][0]), None)
        assert q.hit_at_k == 1.0, (no, ranked)
        assert q.mrr == pytest.approx(1 / first)
        assert q.recall_at_k == 1.0
        assert q.passage_recall == 1.0  # the verbatim evidence sentence is in a retrieved chunk
    assert data["hit_at_k"] == 1.0
    assert data["mrr"] == pytest.approx(sum(by_no[n].mrr for n in "1234") / 4)
    # The evidence-only draft quotes figures but states no verdict: numbers match, yes/no does not.
    assert by_no["3"].number_accuracy == 1.0
    assert by_no["1"].yesno_accuracy == 0.0 and by_no["1"].verdict == ""
    assert data["yesno_answered"] == 0
    # Files next to the output: the per-question table (CSV, JSON), report and chart.
    assert result.table_csv.is_file() and result.table_json.is_file()
    assert result.table_csv.parent == config.output.parent
    table = json.loads(result.table_json.read_text())
    assert len(table["questions"]) == 5 and table["summary"]["hit_at_k"] == 1.0
    assert result.chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "hit@6" in describe_text(result)

    # Scoring the same output again with --from gives the same figures.
    again = run_eval(company["settings"], COMPANY, company["questionnaire"], company["gold"],
                     from_output=config.output, k=6)
    assert {k: v for k, v in again.to_json().items() if k in data and k.endswith(("_k", "mrr", "f1"))} == \
        {k: v for k, v in data.items() if k.endswith(("_k", "mrr", "f1"))}
    assert again.table_csv.name.endswith("-eval.csv")
    # A smaller k can only lower recall.
    k1 = run_eval(company["settings"], COMPANY, company["questionnaire"], company["gold"], from_output=config.output,
                  k=1, out_dir=tmp_path / "k1")
    assert k1.to_json()["recall_at_k"] <= data["recall_at_k"]


def test_two_configurations_are_compared_with_p_values_and_a_chart(company, tmp_path):
    dense, hybrid = tmp_path / "dense.toml", tmp_path / "hybrid.toml"
    # HyDE asked for with no model: the run falls back to dense retrieval, and eval says so.
    dense.write_text('[retrieval]\nmode = "hyde"\n')
    hybrid.write_text('[retrieval]\nmode = "hybrid"\nfinal_k = 4\n')
    reporter = RecordingReporter()
    result = run_eval(company["settings"], COMPANY, company["questionnaire"], company["gold"],
                      configs=[dense, hybrid], k=6, out_dir=tmp_path / "cmp", providers=company["providers"],
                      reporter=reporter)
    assert "eval: configuration dense: retrieval dense, reranker none, final_k 6" in reporter.messages
    assert "eval: configuration hybrid: retrieval hybrid, reranker none, final_k 4" in reporter.messages
    data = result.to_json()
    assert [c["name"] for c in data["configs"]] == ["dense", "hybrid"]
    a, b = result.configs
    assert a.output.parent == tmp_path / "cmp" / "dense" and b.output.parent == tmp_path / "cmp" / "hybrid"
    assert a.run_info.get("retrieval mode") == "dense" and b.run_info.get("retrieval mode") == "hybrid"
    assert max(q.retrieved for q in b.questions) == 4  # the hybrid config's final_k reached its run
    assert company["settings"].retrieval.final_k == 6  # the base settings are untouched
    rows = [c for c in data["comparisons"] if c["metric"] == "mrr"]
    assert len(rows) == 1 and rows[0]["a"] == "dense" and rows[0]["b"] == "hybrid" and rows[0]["n"] == 4
    assert rows[0]["p_value"] is not None and 0.0 <= rows[0]["p_value"] <= 1.0
    report = result.report.read_text()
    assert "## hybrid vs dense" in report and "Wilcoxon" in report and "| MRR |" in report
    assert result.chart.parent == tmp_path / "cmp" and result.chart.read_bytes()[:4] == b"\x89PNG"
    assert "tokens / question" in describe_text(result) and "p = " in describe_text(result)


def test_cli_scores_an_existing_output_as_one_json_line(company, tmp_path):
    from autofill.cli import cli

    first = run_eval(company["settings"], COMPANY, company["questionnaire"], company["gold"],
                     out_dir=tmp_path / "run", providers=company["providers"])
    output = first.configs[0].output
    result = CliRunner().invoke(cli, ["--workspace", str(company["settings"].workspace), "eval", "--company", COMPANY,
                                      "--questionnaire", str(company["questionnaire"]), "--gold",
                                      str(company["gold"]), "--from", str(output), "-k", "3", "--json"])
    assert result.exit_code == 0, result.output
    line = json.loads(result.output.strip().splitlines()[-1])
    assert line["k"] == 3 and line["output"] == str(output) and 0 <= line["recall_at_k"] <= 1
    bad = CliRunner().invoke(cli, ["--workspace", str(company["settings"].workspace), "eval", "--company", COMPANY,
                                   "--questionnaire", str(company["questionnaire"]), "--gold",
                                   str(tmp_path / "missing.json"), "--from", str(output)])
    assert bad.exit_code == 2 and "gold key not found" in bad.output


def test_judge_metrics_join_the_report_when_an_llm_is_configured(company, tmp_path, llm_server):
    from tests.test_eval_judge import judge_responder

    first = run_eval(company["settings"], COMPANY, company["questionnaire"], company["gold"],
                     out_dir=tmp_path / "run", providers=company["providers"])
    llm_server.responder = judge_responder
    judged_settings = load_settings(company["settings"].workspace, environ={}, overrides={
        "llm": {"base_url": llm_server.base_url, "api_key": "k", "max_retries": 0, "cache": False},
        "eval": {"judge_model": "judge-model"}})
    result = run_eval(judged_settings, COMPANY, company["questionnaire"], company["gold"],
                      from_output=first.configs[0].output, out_dir=tmp_path / "judged",
                      providers=Providers(embedder=FakeEmbedder()))
    data = result.to_json()
    assert data["judge_model"] == "judge-model"
    assert data["correctness"] == 0.5 and data["faithfulness"] == 0.5
    assert 0.0 < data["context_relevancy"] < 1.0 and data["answer_relevancy"] is not None
    assert {r.json["model"] for r in llm_server.chat_requests()} == {"judge-model"}
    assert "correctness (judge)" in result.report.read_text()
    (config,) = result.configs
    assert config.judge_prompt_tokens > 0


def write_output(path, evidence: bool = True):
    """A minimal filled workbook in the output format, written by hand."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws.append(["No.", "Question", "Answer", "Reasoning", "Sources", "Confidence", "Status"])
    ws.append(["1", "Net zero target?", "Yes. By 2050.", "", f"{SAMPLE} p. 2", "high", "Answered"])
    ws.append(["2", "Water withdrawal?", "12.4 GL", "", "Typo.pdf p. 5", "high", "Answered"])
    if evidence:
        ev = wb.create_sheet("Evidence")
        ev.append(["Row", "Question", "Rank", "File", "Page", "Cited", "Score", "Text", "Sheet", "Page end"])
        ev.append([2, "Net zero target?", 2, SAMPLE, 1, "no", 0.8, "Cover page text.", "Questionnaire", 2])
        ev.append([2, "Net zero target?", 1, SAMPLE, 7, "yes", 0.9, "We target net zero by 2050.",
                   "Questionnaire", 7])
        ev.append([3, "Water withdrawal?", 1, "Typo.pdf", 5, "yes", 0.9, "Water was 12.4 GL.", "Questionnaire", 5])
    info = wb.create_sheet("Run info")
    info.append(["Key", "Value"])
    info.append(["total prompt tokens", 300])
    info.append(["total completion tokens", 100])
    info.append(["total cost usd", 0.003])
    info.append(["rows answered", 3])  # one row of the run is not in the gold key
    info.append(["rows failed", 0])
    wb.save(path)
    return path


def test_scoring_a_hand_made_output_and_its_warnings(tmp_path):
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([
        {"no": 1, "question": "Net zero target?", "gold_answer": "Yes.", "answer_type": "yesno",
         "gold": [{"file": SAMPLE, "page": 2, "evidence": "We target net zero by 2050."}]},
        {"no": 2, "question": "Water withdrawal?", "gold_answer": "12.4 GL", "answer_type": "number",
         "gold": [{"file": "Water report.pdf", "page": 5}]},
        {"no": 3, "question": "Not in the output", "gold_answer": "Yes.", "gold": []}]))
    settings = load_settings(tmp_path, environ={})
    result = run_eval(settings, COMPANY, tmp_path / "unused.xlsx", gold, from_output=write_output(tmp_path / "o.xlsx"))
    data = result.to_json()
    assert (data["questions"], data["unmatched_gold"]) == (2, 1)
    # Question 1: rank 1 is on p. 7, rank 2 runs over pp. 1-2 (Page end) and so covers gold p. 2.
    assert data["hit_at_k"] == 0.5 and data["mrr"] == 0.25
    q1 = result.configs[0].questions[0]
    assert (q1.mrr, q1.precision_at_k, q1.passage_precision, q1.passage_recall) == (0.5, 0.5, 0.5, 1.0)
    assert data["yesno_accuracy"] == 1.0 and data["number_accuracy"] == 1.0 and data["yesno_answered"] == 1
    assert (data["prompt_tokens"], data["completion_tokens"]) == (300, 100)
    assert data["tokens_per_question"] == pytest.approx(133.3) and data["cost_per_question_usd"] == 0.001
    assert any("'Water report.pdf' never appears" in n for n in result.configs[0].notes)
    assert "gold items not found in the output: 3" in describe_text(result)

    bare = run_eval(settings, COMPANY, tmp_path / "unused.xlsx", gold,
                    from_output=write_output(tmp_path / "bare.xlsx", evidence=False), out_dir=tmp_path / "bare")
    assert bare.to_json()["hit_at_k"] == 0.0
    assert any("no Evidence sheet" in n for n in bare.configs[0].notes)


def test_bad_eval_inputs_are_one_line_errors(tmp_path):
    from autofill.errors import InputError

    settings = load_settings(tmp_path, environ={})
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"no": 1, "question": "Q?", "gold_answer": "Yes."}]))
    output = write_output(tmp_path / "o.xlsx")
    with pytest.raises(InputError, match="at least 1"):
        run_eval(settings, COMPANY, output, gold, from_output=output, k=0)
    with pytest.raises(InputError, match="one or the other"):
        run_eval(settings, COMPANY, output, gold, from_output=output, configs=[tmp_path / "a.toml"])
    with pytest.raises(InputError, match="configuration file not found"):
        run_eval(settings, COMPANY, output, gold, configs=[tmp_path / "missing.toml"])
    bad = tmp_path / "bad.toml"
    bad.write_text("[retrieval]\nmode = 'telepathy'\n")
    from autofill.evaluate.runner import config_settings

    with pytest.raises(InputError, match="unknown retrieval mode"):
        config_settings(settings, bad)
    with pytest.raises(InputError, match="not an autofill output"):
        wb = openpyxl.Workbook()
        wb.active.append(["Question", "Answer"])
        wb.save(tmp_path / "plain.xlsx")
        run_eval(settings, COMPANY, output, gold, from_output=tmp_path / "plain.xlsx")


def test_config_names_are_distinct():
    from pathlib import Path

    from autofill.evaluate.runner import config_names

    assert config_names([Path("a/dense.toml"), Path("b/dense.toml"), Path("my config.toml")]) == \
        ["dense", "dense-2", "my-config"]
