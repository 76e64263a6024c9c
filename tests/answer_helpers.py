"""Shared set-up for the `autofill run` pipeline tests: a workspace with the Northwind sample PDF plus
a long filler report (so retrieval has more than 30 candidates), a Northwind questionnaire, and a
scripted loopback responder that answers HyDE, rerank and answer prompts like a sensible model."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

import openpyxl

from autofill.settings import Settings
from tests.fakes import FakeEmbedder
from tests.llm_server import last_user_text
from tests.pdf_factory import make_sample_company_pdf, make_text_pdf
from tests.workbook_builders import build_questionnaire

SAMPLE = "northwind_sustainability_2024.pdf"
FILLER = "Northwind Operations Review 2024.pdf"
COMPANY = "Northwind Metals"


@dataclass(frozen=True)
class Fact:
    question: str
    form: str
    dropdown: bool
    phrase: str  # verbatim in the sample PDF
    page: int
    answer: str


FACTS = [
    Fact("Does the company have a net zero target for Scope 1 and Scope 2 emissions?",
         "Yes/No and a short explanation", True,
         "committed to net zero Scope 1 and Scope 2 emissions by 2050", 2, "Yes. Net zero Scope 1 and 2 by 2050."),
    Fact("Which board committee oversees climate-related risks and opportunities?", "Short text", False,
         "Board Sustainability Committee oversees climate-related risks", 3,
         "The Board Sustainability Committee, meeting four times a year."),
    Fact("What share of electricity consumption was renewable electricity in FY2024?", "Percentage", False,
         "Renewable electricity made up 46%", 5, "46% in FY2024."),
    # On p. 4: the table starts on p. 3 and its chunk spans pp. 3-4, so the page must be located.
    Fact("What were the Scope 1 emissions in FY2024 (kt CO2e)?", "Number with unit", False,
         "| FY2024 | 1,120 | 540 | 1,660 |", 4, "1,120 kt CO2e in FY2024."),
    Fact("Is the report prepared in line with the TCFD recommendations?", "Yes/No and a short explanation", True,
         "prepared in line with the recommendations of the Task Force", 5, "Yes. Prepared in line with TCFD."),
]

_WORDS = ("haul road maintenance tyre fleet crusher conveyor tailings dam inspection rehabilitation seedling "
          "topsoil contractor roster apprentice training induction canteen logistics rail siding port berth "
          "shiploader stockpile blending assay laboratory drill core geology survey drone mapping community "
          "festival sponsorship scholarship road upgrade fencing signage procurement invoice warehouse spare "
          "parts lubricant filter pump valve pipeline bore licence audit dust monitor noise vibration").split()


def filler_texts(pages: int = 34, seed: int = 7) -> list[str]:
    """Distinct pages of mining-operations prose that share no facts with the questions."""
    rng = random.Random(seed)
    out = []
    for i in range(pages):
        sentences = []
        while sum(len(s) for s in sentences) < 1150:
            words = [rng.choice(_WORDS) for _ in range(rng.randint(9, 16))]
            sentences.append(f"Site {i + 1} " + " ".join(words) + ".")
        out.append(" ".join(sentences))
    return out


def make_workspace(root: Path, settings: Settings | None = None, filler: bool = True) -> tuple[Settings, FakeEmbedder]:
    """Ingest the sample (and the filler) into `root` with the FakeEmbedder."""
    from autofill.ingest.pipeline import ingest_paths

    settings = settings or Settings(workspace=root)
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    paths = [make_sample_company_pdf(docs / SAMPLE)]
    if filler:
        paths.append(make_text_pdf(docs / FILLER, filler_texts()))
    emb = FakeEmbedder()
    report = ingest_paths(settings, COMPANY, paths, embedder=emb)
    assert report.count("failed") == 0, report.files
    return settings, emb


_INGESTED: dict[bool, Path] = {}  # this process's one make_workspace per `filler`, kept until it exits


def copied_workspace(root: Path, filler: bool = True) -> tuple[Settings, FakeEmbedder]:
    """make_workspace(root), ingested once per test process and copied into `root` for each caller.

    The same store, snapshot and documents (the store records the first folder's PDF paths, the same
    bytes, kept until the process exits): for tests about what is done with an ingested store, not
    about ingesting it. Each ingest cost a parse helper with PyMuPDF's layout models over 36 pages."""
    import atexit
    import shutil
    import tempfile

    if filler not in _INGESTED:
        first = Path(tempfile.mkdtemp(prefix="af-workspace-")) / "ws"
        atexit.register(shutil.rmtree, first.parent, True)
        first.mkdir()
        make_workspace(first, filler=filler)
        _INGESTED[filler] = first
    shutil.copytree(_INGESTED[filler], root, dirs_exist_ok=True)
    return Settings(workspace=root), FakeEmbedder()


def make_questionnaire(path: Path, facts=FACTS) -> Path:
    return build_questionnaire(path, questions=[("Climate", f.question, f.form, f.dropdown) for f in facts],
                               extras=False)


def fact_for(text: str, facts=FACTS) -> Fact | None:
    for f in facts:
        if f"Question: {f.question}" in text:
            return f
    return None


_BLOCK = re.compile(r"^\[(\d+)\] \(?([^\n]*?) pp?\. (\d+)(?:-\d+)?\)?\n(.*?)(?=^\[\d+\] |\Z|^Rank all|^</passages>|^</passage>)",
                    re.MULTILINE | re.DOTALL)


def passages_in(prompt: str) -> list[tuple[int, str, int, str]]:
    """(number, file, page, text) of each labelled passage in a rerank or answer prompt."""
    return [(int(n), f.strip(), int(p), t) for n, f, p, t in _BLOCK.findall(prompt)]


def _norm(text: str) -> str:
    return " ".join(text.split())


def hyde_reply(req: dict) -> str:
    f = fact_for(last_user_text(req))
    return f"Here is a hypothetical passage:\n\n{f.phrase if f else 'Our climate report.'}"


def rerank_reply(req: dict) -> str:
    """Passages holding the row's fact first, then the rest in the order shown."""
    prompt = last_user_text(req)
    f = fact_for(prompt)
    nums = passages_in(prompt)
    first = [n for n, _, _, t in nums if f and _norm(f.phrase) in _norm(t)]
    rest = [n for n, *_ in nums if n not in first]
    return " > ".join(f"[{n}]" for n in first + rest)


def answer_reply(req: dict) -> str:
    prompt = last_user_text(req)
    f = fact_for(prompt)
    cited = [n for n, _, _, t in passages_in(prompt) if f and _norm(f.phrase) in _norm(t)]
    return "Step by step.\n```json\n" + json.dumps({
        "reasoning": f"Passage {cited[0] if cited else '?'} states it." if f else "No question found.",
        "answer": f.answer if f and cited else "Not disclosed",
        "citations": cited[:1], "confidence": "high" if cited else "low"}) + "\n```"


MARKERS = {"Write a short passage": hyde_reply, "Rank all": rerank_reply, "single JSON object": answer_reply}


def kind_of(req: dict) -> str:
    text = last_user_text(req)
    for marker, kind in (("Write a short passage", "hyde"), ("Rank all", "rerank"), ("single JSON object", "answer")):
        if marker in text:
            return kind
    return "other"


def read_output(path: Path, sheet: str = "Questionnaire") -> dict:
    """{question: {header: value}} for the question rows, plus "Evidence" rows and "Run info"."""
    wb = openpyxl.load_workbook(path)
    ws = wb[sheet]
    header_row = next(r for r in range(1, 10) if ws.cell(row=r, column=3).value == "Question")
    headers = {c: ws.cell(row=header_row, column=c).value for c in range(1, ws.max_column + 1)}
    rows = {}
    for r in range(header_row + 1, ws.max_row + 1):
        q = ws.cell(row=r, column=3).value
        if q:
            rows[q] = {headers[c]: ws.cell(row=r, column=c).value for c in headers if headers[c]}
    ev = wb["Evidence"]
    ev_head = [c.value for c in ev[1]]
    evidence = [dict(zip(ev_head, [c.value for c in row])) for row in ev.iter_rows(min_row=2)]
    info = {ws_row[0].value: ws_row[1].value for ws_row in wb["Run info"].iter_rows(min_row=2)}
    return {"rows": rows, "evidence": evidence, "info": info}


def centred_searches(monkeypatch) -> dict[str, object]:
    """{text: the mean it was centred on} of every search through a centre (CentredSearch.search_text)."""
    from autofill.search.centring import CentredSearch

    seen: dict[str, object] = {}
    search_text = CentredSearch.search_text

    def recording(self, text, embedder, n):
        seen[text] = self.centre.mean_for(text)
        return search_text(self, text, embedder, n)

    monkeypatch.setattr(CentredSearch, "search_text", recording)
    return seen
