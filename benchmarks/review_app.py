"""`autofill review` on a 500-row workbook: how long the page takes to load in headless Chromium and
how long a save takes (answered "Saved": checked and committed to the sidecar; an approval over failed
checks is timed with its confirmation, two requests), plus how long until the decision is in the
workbook file (the background write of the whole workbook).

    python benchmarks/review_app.py [--rows 500] [--saves 40]

The workbook is generated: 500 question rows in 10 sections with mixed tiers, 6 passages per row
(3,000 Evidence rows; 2 cited, cut from a generated 40-page PDF's own text so the highlights are found),
the layout of autofill's output. The server is the real CLI in its own process; the page is opened with
Playwright for Python driving Debian's chromium (no browser download). Targets on the 2-core dev box:
page load under 1 s, save under 200 ms."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.review_app_helpers import CHROMIUM_ARGS, ReviewServer, chromium_path  # noqa: E402

PDF = "Generated Sustainability Report 2024.pdf"
TIERS = ["Needs work", "Check", "Ready"]


def build(folder: Path, rows: int) -> Path:
    import openpyxl
    import pymupdf

    doc = pymupdf.open()
    pages = []
    for n in range(40):
        text = " ".join(f"Site {n + 1} reported {100 + n * 7 + i} kt CO2e of Scope {1 + i % 3} emissions in FY2024 "
                        f"against a baseline of {200 + i} kt in FY2020." for i in range(12))
        page = doc.new_page(width=595, height=842)
        page.insert_textbox(pymupdf.Rect(60, 70, 535, 780), text, fontsize=10)
        pages.append(text)
    doc.save(str(folder / PDF))
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Questionnaire"
    ws.append(["No.", "Section", "Question", "Answer", "Reasoning", "Sources", "Confidence", "Status", "Review",
               "Reviewer comment", "Tier", "Checks"])
    ev = wb.create_sheet("Evidence")
    ev.append(["Row", "Question", "Rank", "File", "Page", "Cited", "Score", "Text"])
    for i in range(rows):
        r = i + 2
        p = i % 40
        question = f"Question {i + 1}: what were the Scope {1 + i % 3} emissions of site {p + 1} in FY2024?"
        sentence = pages[p].split(". ")[i % 12] + "."
        ws.append([str(i + 1), f"Section {1 + i // 50}", question, f"{100 + p * 7 + i % 12} kt CO2e in FY2024.",
                   f"Passage 1 states: {sentence}", f"{PDF} p. {p + 1}", "high", "Answered", None, None,
                   TIERS[i % 3], "figure not in the cited passage" if i % 3 == 0 else None])
        for rank in range(1, 7):
            page = (p + rank - 1) % 40
            ev.append([r, question, rank, PDF, page + 1, "yes" if rank <= 2 else "no", round(0.9 - rank / 20, 3),
                       pages[page][:1000]])
    info = wb.create_sheet("Run info")
    info.append(["Key", "Value"])
    info.append(["company", "Benchmark Co"])
    info.append(["documents", json.dumps({PDF: str(folder / PDF)})])
    path = folder / "benchmark_filled.xlsx"
    wb.save(path)
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--saves", type=int, default=40)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = build(folder, args.rows)
        t0 = time.perf_counter()
        server = ReviewServer(folder, path)
        started = time.perf_counter() - t0
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.add_init_script("localStorage.setItem('autofillReviewer', 'Bench')")
                page.goto(server.url)  # the first visit: token -> cookie
                loads, ready = [], []
                for _ in range(5):
                    t = time.perf_counter()
                    page.reload(wait_until="load")  # the visible page images included
                    loads.append(time.perf_counter() - t)
                for _ in range(5):
                    t = time.perf_counter()
                    page.reload(wait_until="domcontentloaded")  # rows readable and editable
                    ready.append(time.perf_counter() - t)
                articles = page.locator("article").count()
                html_kb = len(page.content()) / 1024
                cookie = next(c for c in page.context.cookies() if c["name"].startswith("autofill_review"))
                csrf = page.evaluate("CSRF")
                keys = page.evaluate("[...document.querySelectorAll('article')]"
                                     ".map(a => [a.dataset.key, a.dataset.version])")
                browser.close()
            saves, landed, confirmed = [], [], 0

            def decide(payload: dict) -> tuple[int, dict]:
                req = urllib.request.Request(server.base + "/api/decide", data=json.dumps(payload).encode(),
                                             method="POST", headers={
                                                 "Content-Type": "application/json", "X-CSRF-Token": csrf,
                                                 "Origin": server.base,
                                                 "Cookie": f"{cookie['name']}={cookie['value']}"})
                try:
                    with urllib.request.urlopen(req, timeout=30) as resp:
                        return resp.status, json.loads(resp.read())
                except urllib.error.HTTPError as exc:
                    return exc.code, json.loads(exc.read())

            for key, version in keys[: args.saves]:
                payload = {"key": key, "base": version, "reviewer": "Bench", "action": "Approve",
                           "values": {"reviewer_comment": "checked"}}
                t = time.perf_counter()
                code, data = decide(payload)  # checked at once (review_app/checking.py)
                if code == 428:  # failed checks: the reviewer confirms them by name ("Approve anyway")
                    confirmed += 1
                    code, data = decide({**payload, "confirm": data["confirm"]})
                assert data["ok"], data
                saves.append(time.perf_counter() - t)
                time.sleep(0.05)
            # Until the background writer has put every decision into the file.
            t = time.perf_counter()
            status = urllib.request.Request(server.base + "/api/status", headers={
                "Cookie": f"{cookie['name']}={cookie['value']}"})
            while json.loads(urllib.request.urlopen(status, timeout=30).read())["pending"]:
                time.sleep(0.05)
            landed.append(time.perf_counter() - t)
        finally:
            server.stop()
    saves.sort()
    print(json.dumps({
        "rows": args.rows, "articles_on_first_page": articles, "html_kb": round(html_kb),
        "server_start_s": round(started, 2),
        "page_load_s": {"median": round(statistics.median(loads), 3), "first": round(loads[0], 3),
                        "max": round(max(loads), 3)},
        "page_ready_s": {"median": round(statistics.median(ready), 3), "max": round(max(ready), 3)},
        "save_ms": {"median": round(1000 * statistics.median(saves), 1),
                    "p95": round(1000 * saves[int(0.95 * (len(saves) - 1))], 1), "n": len(saves),
                    "confirmed_over_failed_checks": confirmed},
        "all_in_workbook_after_last_save_s": round(landed[0], 2),
    }, indent=2))


if __name__ == "__main__":
    main()
