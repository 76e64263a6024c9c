"""Every state a row can be in, with its Status, Tier and count as the summary, --json, Run info and
the review report each show them, from one workbook built through the real CLI:

  run 1 (a loopback model): answered, answer not written (drop-down), unparsed, failed, kept (the
        customer's own answer), reused from the library (an approved answer learned from an earlier
        questionnaire, re-checked against its cited page);
  a reviewer approves one row, rejects one with a comment and edits one answer by hand;
  run 2 (no model): approved, edited (re-checked), waiting for a model, drafted (the rows that
        failed or were unparsed), kept.

    python benchmarks/row_states.py

Prints a Markdown table per run; exits 1 when the four sources disagree on a count."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

Q = [("Climate", "What share of electricity consumption was renewable in FY2024?", "Percentage", False),
     ("People", "How many employees did the company have at the end of FY2024?", "Number", False),
     ("Climate", "What percentage of the electricity used in FY2024 was renewable?", "Percentage", False),
     ("Climate", "What was the renewable share of electricity consumption in FY2024?", "Percentage", False),
     ("Climate", "Is renewable electricity more than half of consumption in FY2024?", "Yes/No", True),
     ("Water", "How much water did the company withdraw in FY2024?", "Number", False),
     ("Waste", "How much waste did the company send to landfill in FY2024?", "Number", False),
     ("General", "Does the company publish a sustainability report?", "Short text", False)]


def main() -> int:
    import openpyxl

    from autofill.states import parse_status
    from tests.llm_server import LLMServer, Reply, by_marker, last_user_text
    from tests.rows_helpers import answer_first_figure, cli, company_reports, env_for, last_json
    from tests.answer_helpers import passages_in
    from tests.workbook_builders import build_questionnaire

    def answer(req):
        text = last_user_text(req)
        if "water" in text.lower().split("question:")[-1]:
            return "I cannot answer that in JSON, sorry."  # unparsed
        if "landfill" in text.lower().split("question:")[-1]:
            return Reply.error(500, "upstream down")  # failed after retries
        return answer_first_figure(req)

    responder = by_marker({"Write a short passage": lambda r: "Renewable electricity and employees.",
                           "Rank all": lambda r: " > ".join(f"[{n}]" for n, *_ in passages_in(last_user_text(r))),
                           "single JSON object": answer}, default="ok")
    tables, ok = [], True
    with tempfile.TemporaryDirectory() as tmp, LLMServer() as server:
        ws = Path(tmp)
        server.responder = responder
        env = env_for(server, AUTOFILL_LLM__MAX_RETRIES="0", AUTOFILL_LLM__RETRY_BASE_DELAY_S="0")
        company_reports(ws / "reports", "States Co", 40, 900)
        assert cli(ws, env, "ingest", "--company", "States Co", "reports").returncode == 0
        # The library: an approved answer from an earlier questionnaire (the reused row).
        build_questionnaire(ws / "earlier.xlsx", questions=Q[1:2], extras=False)
        earlier = last_json(cli(ws, env, "run", "--company", "States Co", "--questionnaire", "earlier.xlsx", "--json"))
        wb = openpyxl.load_workbook(earlier["output"])
        sheet = wb["Questionnaire"]
        head = {c.value: c.column for c in sheet[next(r for r in range(1, 9) if sheet.cell(r, 3).value == "Question")]}
        sheet.cell(row=max(r for r in range(1, sheet.max_row + 1) if sheet.cell(r, 3).value), column=head["Review"],
                   value="Approved")
        wb.save(earlier["output"])
        cli(ws, env, "run", "--company", "States Co", "--questionnaire", "earlier.xlsx", "--json")

        build_questionnaire(ws / "q.xlsx", questions=Q, extras=False)
        wb = openpyxl.load_workbook(ws / "q.xlsx")
        sheet = wb["Questionnaire"]
        row = {sheet.cell(r, 3).value: r for r in range(1, sheet.max_row + 1) if sheet.cell(r, 3).value}
        sheet.cell(row=row[Q[7][1]], column=6, value="Yes, every year.")  # the customer's own answer
        wb.save(ws / "q.xlsx")

        for label, extra, edit in (("run 1 (model)", {}, True), ("run 2 (no model)", {"AUTOFILL_LLM__PROVIDER": "none"}, False)):
            proc = cli(ws, {**env, **extra}, "run", "--company", "States Co", "--questionnaire", "q.xlsx", "--reuse",
                       "approved", "--json")
            data = last_json(proc)
            tables.append((label, data, *read_sources(data)))
            if edit:  # the reviewer
                wb = openpyxl.load_workbook(data["output"])
                sheet = wb["Questionnaire"]
                hr = next(r for r in range(1, 9) if sheet.cell(r, 3).value == "Question")
                head = {c.value: c.column for c in sheet[hr]}
                r = {sheet.cell(x, 3).value: x for x in range(hr + 1, sheet.max_row + 1) if sheet.cell(x, 3).value}
                sheet.cell(row=r[Q[0][1]], column=head["Review"], value="Approved")
                sheet.cell(row=r[Q[3][1]], column=head["Review"], value="Rejected")
                sheet.cell(row=r[Q[3][1]], column=head["Reviewer comment"], value="Give the FY2024 share.")
                sheet.cell(row=r[Q[2][1]], column=head["Answer"], value="55% in FY2024.")
                wb.save(data["output"])
    for label, data, rows, info, report in tables:
        print(f"\n### {label}\n")
        print("| state (outcome) | Status (first part) | Tier | rows in workbook | --json | Run info | review report (rows of that tier) |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        by_state = Counter()
        for status, tier in rows:
            by_state[(state_of(status, parse_status), status.split(";")[0].split(":")[0].split("(")[0].strip(), tier)] += 1
        for (state, status, tier), n in sorted(by_state.items()):
            js = json_count(data, state)
            ri = info_count(info, state)
            rp = report.get(tier.lower().replace(" ", "_") if tier else "none", 0)
            print(f"| {state} | {status or '(blank)'} | {tier or '(none)'} | {n} | {js} | {ri} | {rp} |")
        tiers_json = {k: v for k, v in data["tiers"].items() if v}
        tiers_book = Counter(t.lower().replace(" ", "_") for _, t in rows if t)
        tiers_info = {k: int(info.get(f"tier {k.replace('_', ' ')}", 0)) for k in data["tiers"] if info.get(f"tier {k.replace('_', ' ')}")}
        print(f"\ntiers: --json {tiers_json}; workbook {dict(tiers_book)}; Run info {tiers_info}; review report "
              f"{ {k: v for k, v in report.items() if k != 'none'} }")
        same = tiers_json == dict(tiers_book) == tiers_info == {k: v for k, v in report.items() if k != "none"}
        ok &= same
        print("all four agree" if same else "DISAGREE")
    return 0 if ok else 1


def state_of(status: str, parse_status) -> str:
    outcome = parse_status(status)
    return outcome.value if outcome is not None else "skipped (customer's own)"


def json_count(data: dict, state: str) -> str:
    key = {"answered": "answered", "drafted": "drafted", "unparsed": "unparsed", "failed": "failed",
           "reused": "reused", "not_written": "not_written", "approved": "approved", "edited": "edited_by_hand",
           "waiting": "waiting_for_model"}.get(state)
    return f"{key}: {data[key]}" if key else f"skipped: {data['skipped']}"


def info_count(info: dict, state: str) -> str:
    key = {"answered": "rows answered", "drafted": "rows drafted (evidence only)", "unparsed": "rows unparsed",
           "failed": "rows failed", "reused": "rows reused from the library",
           "not_written": "rows answered, answer not written", "approved": "rows approved in review (kept)",
           "edited": "rows edited by hand (kept)", "waiting": "rows waiting for a model (kept)"}.get(
        state, "rows skipped (kept as they were)")
    return f"{info.get(key)}"


def read_sources(data: dict):
    """(status, tier) of every question row, the Run info pairs, and the review report's tier counts."""
    import openpyxl

    wb = openpyxl.load_workbook(data["output"])
    ws = wb["Questionnaire"]
    hr = next(r for r in range(1, 9) if ws.cell(r, 3).value == "Question")
    head = {c.value: c.column for c in ws[hr]}
    rows = [(str(ws.cell(r, head["Status"]).value or ""), str(ws.cell(r, head["Tier"]).value or ""))
            for r in range(hr + 1, ws.max_row + 1) if ws.cell(r, 3).value]
    info = {r[0].value: r[1].value for r in wb["Run info"].iter_rows(min_row=2)}
    html = open(data["report"], encoding="utf-8").read()
    found = re.findall(r'<article class="question \w+" id="q-[^"]+" data-tier="(\w+)"', html)
    return rows, info, dict(Counter(found))


if __name__ == "__main__":
    sys.exit(main())
