"""A small generated portfolio for the batch tests: per company a folder with a generated PDF report,
one shared questionnaire, and the manifest in .csv, .xlsx or .toml. Models and embeddings come from
the loopback OpenAI-compatible server through the real SDK (settings through environment variables,
as a user sets them)."""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl

from tests.answer_helpers import FACTS, MARKERS, make_questionnaire
from tests.llm_server import by_marker
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
