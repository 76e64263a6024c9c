"""Shared set-up for the row-state and output-identity tests, which drive the real CLI in fresh
processes: a company's reports as generated PDFs with one figure each, a small questionnaire, a
loopback OpenAI-compatible model whose answer quotes the first figure of the passage it cites, and
`cli(...)` running `python -m autofill` with the model's environment."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from tests import cli_process
from tests.answer_helpers import passages_in
from tests.llm_server import by_marker, last_user_text
from tests.pdf_factory import make_text_pdf
from tests.portfolio_helpers import model_env
from tests.workbook_builders import build_questionnaire

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [("Climate", "What share of electricity consumption was renewable in FY2024?", "Percentage", False),
             ("Climate", "How many employees did the company have at the end of FY2024?", "Number", False)]


def company_reports(folder: Path, company: str, renewable: int, employees: int) -> Path:
    """One PDF for `company` stating its own two figures, padded with pages that state none."""
    folder.mkdir(parents=True, exist_ok=True)
    pages = [f"{company} sustainability report FY2024. Renewable electricity made up {renewable}% of the "
             f"electricity consumption of {company} in FY2024, up from the year before.",
             f"People. At the end of FY2024 {company} had {employees:,} employees across all of its sites.",
             *(f"Site {i} operations: maintenance, logistics, training and community programmes continued."
               for i in range(1, 5))]
    return make_text_pdf(folder / f"report {renewable}-{employees}.pdf", pages)


def questionnaire(path: Path) -> Path:
    return build_questionnaire(path, questions=QUESTIONS, extras=False)


def answer_first_figure(req: dict) -> str:
    """Cites the first passage that holds a figure for the question and answers with that figure."""
    prompt = last_user_text(req)
    question = re.search(r"Question: (.*)", prompt)
    want = "%" if question and "renewable" in question.group(1).lower() else "employees"
    for n, _, _, text in passages_in(prompt):
        m = re.search(r"(\d[\d,]*%)" if want == "%" else r"(\d[\d,]*) employees", text)
        if m:
            return "```json\n" + json.dumps({"reasoning": f"Passage {n} states it.", "answer": f"{m.group(1)} in FY2024.",
                                             "citations": [n], "confidence": "high"}) + "\n```"
    return json.dumps({"reasoning": "not found", "answer": "Not disclosed", "citations": [], "confidence": "low"})


def responder():
    return by_marker({"Write a short passage": lambda r: "A passage about renewable electricity and employees.",
                      "Rank all": lambda r: " > ".join(f"[{n}]" for n, *_ in passages_in(last_user_text(r))),
                      "single JSON object": answer_first_figure}, default="ok")


def env_for(server, offline: bool = False, **extra: str) -> dict[str, str]:
    env = {**os.environ, **model_env(server, **extra), "PYTHONPATH": str(ROOT)}
    if offline:
        env["AUTOFILL_LLM__PROVIDER"] = "none"
    return env


def cli(workspace: Path, env: dict[str, str], *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    """`autofill --workspace WS ARGS...` in a fresh interpreter."""
    return cli_process.run(["--workspace", str(workspace), *args], env=env, timeout=timeout, cwd=workspace)


def last_json(proc: subprocess.CompletedProcess) -> dict:
    lines = [ln for ln in proc.stdout.strip().splitlines() if ln.startswith("{")]
    assert lines, (proc.returncode, proc.stdout, proc.stderr)
    return json.loads(lines[-1])
