"""A small generated portfolio for the batch tests: per company a folder with a generated PDF report,
one shared questionnaire, and the manifest in .csv, .xlsx or .toml. Models and embeddings come from
the loopback OpenAI-compatible server through the real SDK (settings through environment variables,
as a user sets them)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any, Callable

import openpyxl

from tests.answer_helpers import FACTS, MARKERS, fact_for, make_questionnaire
from tests.llm_server import by_marker, last_user_text, message_text
from tests.pdf_factory import make_sample_company_pdf

COMPANIES = ("Alpha Mining", "Beta Metals", "Gamma Energy")
HEADER = ["company", "reports", "questionnaire", "output", "year"]


def entries(root: Path, companies=COMPANIES) -> list[dict[str, str]]:
    """Reports and the questionnaire under `root`; one manifest entry per company (paths relative)."""
    q = root / "questionnaire.xlsx"
    if not q.exists():
        make_questionnaire(q)
    out = []
    for i, name in enumerate(companies):
        folder = root / "reports" / name.split()[0].lower()
        folder.mkdir(parents=True, exist_ok=True)
        pdf = folder / f"{name.split()[0]} sustainability report 2024.pdf"
        if not pdf.exists():
            make_sample_company_pdf(pdf)
        # Three ways to name reports: a folder, a glob, a file list.
        reports = [f"reports/{folder.name}", f"reports/{folder.name}/*.pdf", f"reports/{folder.name}/{pdf.name}"][i % 3]
        out.append({"company": name, "reports": reports, "questionnaire": "questionnaire.xlsx",
                    "output": "", "year": "2024"})
    return out


_INGESTED: list[Path] = []  # this process's one workspace with the three companies ingested, kept until it exits


def ingested_entries(workspace: Path, companies=COMPANIES) -> list[dict[str, str]]:
    """entries(workspace, companies), with the reports of all three companies already in the store.

    The reports, the questionnaire and vectordb/ of a workspace where the three companies were ingested
    (`autofill ingest`, embeddings from a loopback server of its own as model_env sets them: the batch's
    own embedder, so batch finds each report stored and ingests nothing), made once per test process and
    copied into `workspace` for each caller: the same PDFs' bytes and names (the store records the first
    folder's paths); a company the manifest leaves out is never opened. For tests about what batch does
    with ingested companies; tests about its ingest (new_documents, a bad report, contextualising, a
    worker killed mid-document) ingest their own. Each ingest cost a parse helper with PyMuPDF's layout
    model over the sample's tables (~1.8 CPU-s a company)."""
    import atexit
    import shutil
    import tempfile

    from click.testing import CliRunner

    from autofill.cli import cli
    from tests.llm_server import LLMServer

    if not _INGESTED:
        first = Path(tempfile.mkdtemp(prefix="af-portfolio-"))
        atexit.register(shutil.rmtree, first, True)
        with LLMServer() as server:
            for row in entries(first):
                folder = first / "reports" / row["company"].split()[0].lower()
                result = CliRunner(env=model_env(server)).invoke(
                    cli, ["--workspace", str(first), "ingest", "--company", row["company"], str(folder)])
                assert result.exit_code == 0, result.output
        _INGESTED.append(first)
    shutil.copytree(_INGESTED[0], workspace, dirs_exist_ok=True)
    return entries(workspace, companies)


def write_manifest(root: Path, rows: list[dict[str, str]], fmt: str = "csv") -> Path:
    path = root / f"portfolio.{fmt}"
    if fmt == "csv":
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=HEADER)
            w.writeheader()
            w.writerows(rows)
    elif fmt == "xlsx":
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.append(["Client portfolio 2024"])  # a title row above the header
        ws.append([h.capitalize() for h in HEADER])
        for r in rows:
            ws.append([r[h] for h in HEADER])
        wb.save(path)
    else:
        lines = []
        for r in rows:
            lines.append("[[company]]")
            lines += [f'{k} = "{v}"' for k, v in r.items() if v]
            lines.append("")
        path.write_text("\n".join(lines), encoding="utf-8")
    return path


def model_env(server, **extra: str) -> dict[str, str]:
    """Environment for a CLI run against the loopback server: chat and embeddings over HTTP."""
    env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test",
           "AUTOFILL_EMBEDDING__PROVIDER": "openai", "AUTOFILL_LLM__MODEL": "gpt-4o-mini",
           "AUTOFILL_LLM__RETRY_BASE_DELAY_S": "0.01", "AUTOFILL_RETRIEVAL__MODE": "hyde+hybrid"}
    env.update(extra)
    return env


# The loopback model priced as a user prices a paid OpenAI-compatible endpoint: providers/cost.py
# applies list prices only at the provider's own endpoint, so without this a loopback run's cost is unknown.
LOOPBACK_PRICES = {"gpt-4o-mini": [0.15, 0.60]}


def price_loopback(workspace: Path) -> None:
    """Price the loopback model in the workspace's autofill.toml (made or extended)."""
    toml = workspace / "autofill.toml"
    text = toml.read_text(encoding="utf-8") if toml.exists() else ""
    if "[cost.prices]" not in text:
        prices = "".join(f'"{m}" = [{p[0]}, {p[1]}]\n' for m, p in LOOPBACK_PRICES.items())
        toml.write_text(text + "\n[cost.prices]\n" + prices, encoding="utf-8")


def responder():
    return by_marker(MARKERS, default="ok")


QUESTIONS = len(FACTS)


# --------------------------------------------------------------------------- unreadable replies (issue 31)

UNREADABLE = "Sorry, I cannot answer that from these passages."


def unreadable_for(questions: list[str]):
    """The loopback model, except that its answer to these questions is prose no parser can read."""
    good = responder()

    def reply(req: dict):
        text = message_text(req)
        if "single JSON object" in text and any(f"Question: {q}" in text for q in questions):
            return UNREADABLE
        return good(req)

    return reply


def overview_counts(portfolio: str, company: str) -> dict:
    """The company's row of the overview's Companies sheet: its counts, cost and time, by header."""
    from autofill.portfolio.workbook import COUNT_COLUMNS

    sheet = openpyxl.load_workbook(portfolio)["Companies"]
    head = [c.value for c in sheet[1]]
    row = next(r for r in sheet.iter_rows(min_row=2, values_only=True) if r[0] == company)
    return {h: row[head.index(h)] for h in [*COUNT_COLUMNS.values(), "Question rows", "Cost (USD)", "Time (s)"]}


def index_row(portfolio: str, company: str) -> str:
    """The company's row of index.html, beside the overview."""
    html = (Path(portfolio).parent / "index.html").read_text(encoding="utf-8")
    return re.search(rf"<tr[^>]*><td>{re.escape(company)}</td>.*?</tr>", html, re.DOTALL).group(0)


def invoke(workspace: Path, env: dict[str, str], *args: Any, as_json: bool = True) -> tuple[int, Any, Any]:
    """`autofill --workspace WORKSPACE ARGS [--json]` in this process -> (exit code, its JSON line or None,
    the click result)."""
    from click.testing import CliRunner

    from autofill.cli import cli

    result = CliRunner(env=env).invoke(cli, ["--workspace", str(workspace), *map(str, args),
                                             *(["--json"] if as_json else [])])
    lines = result.stdout.strip().splitlines()
    assert lines, (result.exit_code, result.output, result.exception)
    return result.exit_code, json.loads(lines[-1]) if as_json else None, result


def check_unreadable_rows(workspace: Path, server, engine: str, stored: bool = False) -> None:
    """Batch (on `engine`) with the model's answers to two of the five rows unreadable, as a tester ran it.
    Checks that batch counts and words those rows as `autofill run` does and exits 1; that the next batch
    asks the model again for exactly those rows; that a third, finished batch leaves the overview's counts
    as they were; that a reviewer's decisions in the company's workbook (the one `run` writes) reach the
    overview. `stored`: the company's report already stored (ingested_entries), else the first batch ingests it."""
    from autofill.answer.checkpoint import safe_name

    company = COMPANIES[0]
    manifest = write_manifest(workspace, (ingested_entries if stored else entries)(workspace, companies=(company,)))
    bad = [FACTS[1].question, FACTS[3].question]
    server.responder = unreadable_for(bad)

    env = model_env(server)
    price_loopback(workspace)

    def batch(*args: Any, as_json: bool = True) -> tuple[int, Any, Any]:
        return invoke(workspace, env, "batch", manifest, "--engine", engine, *args, as_json=as_json)

    # As a person reads it (its own output folder, so that the next batch starts afresh as well) ...
    code, _, text = batch("--out", workspace / "text", as_json=False)
    line = re.search(rf"^  incomplete {re.escape(company)}: (.*), \$[0-9.]+, [0-9.]+ s$", text.stdout, re.MULTILINE)
    assert code == 1 and line, text.output
    assert f"0 succeeded, 1 incomplete, 0 failed), {QUESTIONS} rows: {line.group(1)};" in text.stdout
    # ... `run` on the same company and questionnaire (its own output too): the same counts in the same
    # words, and exit 1 as well ...
    _, _, ran = invoke(workspace, env, "run", "--company", company, "--questionnaire", workspace / "questionnaire.xlsx",
                       "--out", workspace / "run", as_json=False)
    said = re.search(rf"^{re.escape(company)}: {QUESTIONS} question rows, (.*) in [0-9.]+ s$", ran.stdout, re.MULTILINE)
    assert ran.exit_code == 1 and said, ran.output
    assert said.group(1) == line.group(1) == f"{QUESTIONS - 2} answered, 2 unparsed, 0 failed, 0 skipped"
    # ... and under --json.
    code, first, result = batch()
    assert code == 1, result.output
    assert (first["succeeded"], first["incomplete"], first["failed"]) == (0, 1, 0)
    assert (first["rows"], first["answered"], first["unparsed_rows"], first["failed_rows"], first["not_written_rows"],
            first["skipped_rows"]) == (QUESTIONS, QUESTIONS - 2, 2, 0, 0, 0)
    # One workbook per company and questionnaire: the one `run` writes (reports_out/<q>_<company>_filled.xlsx).
    output = Path(first["outputs"][company])
    assert output == workspace / "reports_out" / f"questionnaire_{safe_name(company)}_filled.xlsx"
    counts = overview_counts(first["portfolio"], company)
    assert (counts["Answered"], counts["Unparsed"], counts["Failed"]) == (QUESTIONS - 2, 2, 0)
    assert "<td>incomplete</td>" in index_row(first["portfolio"], company)

    # The model reads again: the next batch asks it again for exactly the two unparsed rows (an unreadable
    # reply is never served from the response cache), and keeps the three answered ones.
    server.responder = responder()
    before = len(server.chat_requests())
    code, second, result = batch()
    answers = [fact_for(last_user_text(r.json)) for r in server.chat_requests()[before:]
               if "single JSON object" in message_text(r.json)]
    assert sorted(f.question for f in answers) == sorted(bad), "the model was not asked again for the unparsed rows"
    assert code == 0, result.output
    assert (second["succeeded"], second["answered"], second["unparsed_rows"], second["skipped_rows"]) == \
        (1, 2, 0, QUESTIONS - 2)
    after_second = overview_counts(second["portfolio"], company)
    assert (after_second["Answered"], after_second["Unparsed"]) == (QUESTIONS, 0)
    row_after_second = index_row(second["portfolio"], company)

    # A third batch finds it finished: no call, and the overview says what the workbook holds, as before.
    calls = len(server.requests)
    code, third, result = batch()
    assert code == 0 and len(server.requests) == calls, result.output
    assert third["cost_usd"] == 0 and third["outputs"][company] == str(output)
    assert overview_counts(third["portfolio"], company) == after_second
    assert index_row(third["portfolio"], company) == row_after_second.replace("<td>done</td>", "<td>up to date</td>")

    # A reviewer edits and approves a row in that workbook (as in Excel): the next batch applies it (no model
    # call) and the overview shows the reviewer's answer and the approval.
    book = openpyxl.load_workbook(output)
    ws = book["Questionnaire"]
    heads = {ws.cell(row=3, column=c).value: c for c in range(1, ws.max_column + 1)}
    r = next(r for r in range(4, ws.max_row + 1) if ws.cell(row=r, column=3).value == FACTS[2].question)
    ws.cell(row=r, column=heads["Answer"], value="46% renewable electricity in FY2024 (checked by Ana).")
    ws.cell(row=r, column=heads["Review"], value="Approved")
    book.save(output)
    code, fourth, result = batch()
    assert code == 0 and len(server.requests) == calls, result.output
    assert (fourth["answered"], fourth["skipped_rows"]) == (0, QUESTIONS)
    counts = overview_counts(fourth["portfolio"], company)
    assert (counts["Answered"], counts["Approved"], counts["Unparsed"]) == (QUESTIONS - 1, 1, 0)
    cells = [c.value for c in openpyxl.load_workbook(fourth["portfolio"])["Portfolio"][2]]
    assert "46% renewable electricity in FY2024 (checked by Ana)." in cells
