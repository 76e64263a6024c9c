"""The reviewer's HTML report for a filled workbook: every question with its answer, reasoning,
confidence, status and review state; every passage the answer step saw; and for each cited passage
an image of its PDF page with the passage highlighted plus a link that opens the PDF at that page.

Output: `<output stem>_review/index.html` next to the workbook, with the page images in `pages/`.
The whole folder is built under a temporary name and renamed into place, so a reviewer never opens
a half-written report. All document and model text is escaped (Jinja2 autoescape): PDF text is
untrusted."""

from __future__ import annotations

import os
import logging
import re
import shutil
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping
from urllib.parse import quote

from autofill.errors import InputError
from autofill.review.highlights import relevance, select_highlights, text_runs
from autofill.review.links import Links, relative_link
from autofill.review.pack import fill_pack, pack_dir_for, write_zip
from autofill.review.page_images import PageRenderer
from autofill.review.pdf_sources import PdfSource, locate_pdfs
from autofill.review.reader import EvidenceRow, FilledWorkbook, ReviewQuestion, read_filled_workbook
from autofill.review.review_log import read_lines
from autofill.states import (REVIEW_CHOICES, WRITES_ANSWER, Outcome, ReviewState, Tier, parse_review, parse_status,
                             parse_tier)
from autofill.tempdirs import make_temp_dir, sweep

log = logging.getLogger(__name__)

TEMPLATE = "review_report.html.j2"
PAGES_DIR = "pages"
MAX_PAGES_PER_PASSAGE = 2  # a chunk spilling over a page break shows both pages, never more
EAGER_IMAGES = 4  # the first images load at once (screenshots, print); the rest lazily
# Run info keys worth showing in the summary panel (the full sheet is listed further down), as the run
# pipeline names them; a workbook from elsewhere falls back to keys that look like these.
SUMMARY_KEYS = ("company", "llm provider", "llm model", "embedder", "retrieval mode", "reranker", "started",
                "finished", "total llm calls", "total prompt tokens", "total completion tokens", "total cost usd")
_SUMMARY_LIKE = re.compile(r"company|model|embedder|retrieval|rerank|cost|started|finished", re.IGNORECASE)
REVIEW_STATES = tuple(REVIEW_CHOICES)
TIER_ORDER = (Tier.NEEDS_WORK, Tier.CHECK, Tier.READY, Tier.APPROVED)  # what to read first
TIER_CLASS = {Tier.READY: "ok", Tier.CHECK: "warn", Tier.NEEDS_WORK: "bad", Tier.APPROVED: "ok"}


@dataclass
class PageView:
    file_name: str
    page: int
    link: str  # file:///...#page=N, empty when the PDF was not found
    image: str = ""  # path relative to index.html, empty when not rendered
    width: int = 0
    height: int = 0
    highlighted: bool = False
    eager: bool = False
    note: str = ""


@dataclass
class PassageView:
    rank: int
    file_name: str
    page_label: str  # "p. 26 (printed 24)"
    cited: bool
    score: str
    text: str
    pages: list[PageView] = field(default_factory=list)
    relevance: int | None = None  # 0-100 relative to the question's best passage
    ocr: bool = False
    # The text cut into (piece, marked) runs: marked pieces carry the answer (review/highlights.py).
    runs: list[tuple[str, bool]] = field(default_factory=list)


@dataclass
class QuestionView:
    q: ReviewQuestion
    anchor: str
    status_class: str
    status_short: str  # the status up to its first ";" (details follow in the question's card)
    review_class: str
    evidence_only: bool
    cited: list[PassageView]
    uncited: list[PassageView]
    extra_sources: list[PageView]  # pages in Sources with no passage in Evidence
    tier: Tier | None = None
    checks: list[str] = field(default_factory=list)  # failed checks in words

    @property
    def tier_class(self) -> str:
        return TIER_CLASS.get(self.tier, "none") if self.tier is not None else "none"

    @property
    def tier_key(self) -> str:
        return self.tier.key if self.tier is not None else "none"


def _status_class(status: str, answer: str | None = None) -> str:
    """The badge colour of a Status; `answer`: the row's Answer cell (None: not known, e.g. a count of
    statuses), so a row that says Answered but holds no answer is never shown green."""
    s = status.lower()
    if not s:
        return "none"
    outcome = parse_status(status)
    if outcome in (Outcome.FAILED, Outcome.UNPARSED, Outcome.NOT_WRITTEN, Outcome.WAITING) or "error" in s \
            or "could not" in s or (answer is not None and not answer.strip() and outcome in WRITES_ANSWER):
        return "bad"
    if outcome is Outcome.DRAFTED:
        return "evidence"
    if "flag" in s or "dropped" in s or "not allowed" in s or "check" in s:
        return "warn"
    return "ok"


def _review_class(review: str) -> str:
    return {ReviewState.APPROVED: "ok", ReviewState.NEEDS_CHANGES: "warn",
            ReviewState.REJECTED: "bad"}.get(parse_review(review), "none")


def _anchor(q: ReviewQuestion) -> str:
    return "q-" + re.sub(r"[^A-Za-z0-9]+", "-", f"{q.sheet}-{q.cell or q.row}").strip("-").lower()


class _Pages:
    """Renders page images on demand and turns failures into notes on the page view."""

    def __init__(self, sources: dict[str, PdfSource], pages_dir: Path, dpi: int, links: Links):
        self.sources = sources
        self.link = links.link
        self.pages_dir = pages_dir
        self.renderer = PageRenderer(pages_dir, dpi=dpi)
        self.rendered = 0
        self.missing: set[str] = set()
        self.failed: dict[str, str] = {}  # file name -> why its pages could not be rendered

    def view(self, file_name: str, page: int, passages: list[str]) -> PageView:
        source = self.sources.get(file_name) or PdfSource(file_name, None, f"PDF not found: {file_name}")
        view = PageView(file_name=file_name, page=page, link=self.link(file_name, page), note=source.note)
        if source.path is None:
            self.missing.add(file_name)
            return view
        try:
            done = self.renderer.render(source.path, file_name, page, passages)
        except Exception as exc:  # corrupt or protected PDF, page out of range: say so, keep going
            view.note = f"page image unavailable: {exc}"
            self.failed.setdefault(file_name, str(exc))
            return view
        view.image = f"{PAGES_DIR}/{done.image.name}"
        view.width, view.height, view.highlighted = done.width, done.height, done.highlighted
        view.eager = self.rendered < EAGER_IMAGES
        self.rendered += 1
        if passages and not done.highlighted:
            view.note = "the passage text could not be located on this page; shown without highlight"
        return view

    def close(self) -> None:
        self.renderer.close()


def _passage_view(e: EvidenceRow, cited: bool, pages: _Pages | None, q: ReviewQuestion | None = None,
                  relevance: int | None = None) -> PassageView:
    label = f"p. {e.page_start}" if e.page_end == e.page_start else f"pp. {e.page_start}\u2013{e.page_end}"
    if e.printed and e.printed != (str(e.page_start) if e.page_end == e.page_start else f"{e.page_start}-{e.page_end}"):
        label += f" (printed {e.printed})"
    marks = select_highlights(e.text, q.answer, q.reasoning) if cited and q is not None else []
    view = PassageView(rank=e.rank, file_name=e.file_name, page_label=label, cited=cited, score=e.score,
                       text=e.text, relevance=relevance, ocr=e.ocr, runs=text_runs(e.text, marks))
    for n in e.pages[:MAX_PAGES_PER_PASSAGE]:
        if cited and pages is not None:
            # The sentences and rows that carry the answer; the whole passage when none can be told apart.
            view.pages.append(pages.view(e.file_name, n, marks or [e.text]))
        else:  # uncited passages get the link only: images are for what the answer rests on
            view.pages.append(PageView(e.file_name, n, pages.link(e.file_name, n) if pages else ""))
    lit = [pv.page for pv in view.pages if pv.highlighted]
    for pv in view.pages:  # a passage over a page break: its answer sentences are on one of the pages
        if lit and not pv.highlighted and pv.image:
            pv.note = f"the sentences that carry the answer are on page {lit[0]}"
    return view


def _question_view(q: ReviewQuestion, pages: _Pages) -> QuestionView:
    sources = q.cited_sources
    any_marked = any(e.cited for e in q.evidence)
    cited, uncited = [], []
    for e, rel in zip(q.evidence, relevance([e.score for e in q.evidence])):
        # Without Cited marks (an older or hand-made workbook), the Sources cell decides.
        is_cited = e.cited or (not any_marked and any((e.file_name, n) in sources for n in e.pages))
        (cited if is_cited else uncited).append(_passage_view(e, is_cited, pages, q, rel))
    covered = {(p.file_name, pv.page) for p in cited for pv in p.pages}
    extra = [pages.view(f, n, []) for f, n in sources if (f, n) not in covered]
    short = q.status.split(";")[0].strip()
    if not q.answer.strip() and parse_status(q.status) in WRITES_ANSWER:
        short = "No answer in the Answer cell"  # an older output: "Answered; answer left empty: ..."
    return QuestionView(q=q, anchor=_anchor(q), status_class=_status_class(q.status, q.answer),
                        status_short=short,
                        review_class=_review_class(q.review),
                        evidence_only=parse_status(q.status) is Outcome.DRAFTED,
                        cited=cited, uncited=uncited, extra_sources=extra, tier=parse_tier(q.tier),
                        checks=[c.strip() for c in q.checks.split(";") if c.strip()])


def _tier_groups(views: list[QuestionView]) -> list[dict]:
    """The questions grouped by tier, the one to read first first; empty for outputs without tiers."""
    groups = []
    for t in TIER_ORDER:
        members = [v for v in views if v.tier is t]
        if members:
            groups.append({"label": t.label, "key": t.key, "cls": TIER_CLASS[t], "questions": members})
    return groups


def _run_highlights(run_info: list[tuple[str, str]]) -> list[tuple[str, str]]:
    known = {k.strip().lower(): (k, v) for k, v in run_info}
    picked = [known[k] for k in SUMMARY_KEYS if k in known]
    if len(picked) >= 3:
        return picked
    return [(k, v) for k, v in run_info if _SUMMARY_LIKE.search(k) and k.lower() != "documents"][:12]


def _summary(book: FilledWorkbook, company: str, views: list[QuestionView]) -> dict:
    statuses = Counter(v.q.status or "(no status)" for v in views)
    reviews = Counter(parse_review(v.q.review).label or "Not reviewed"
                      for v in views)
    return {
        "company": company,
        "questions": len(views),
        "statuses": [(s, n, _status_class("" if s == "(no status)" else s)) for s, n in statuses.most_common()],
        "reviews": [(s, reviews[s], _review_class(s)) for s in (*REVIEW_STATES, "Not reviewed") if reviews[s]],
        "run_highlights": _run_highlights(book.run_info),
        "tiers": [(t.label, t.key, sum(1 for v in views if v.tier is t), TIER_CLASS[t]) for t in TIER_ORDER
                  if any(v.tier is t for v in views)],
        "passages": sum(len(v.cited) + len(v.uncited) for v in views),
        "cited": sum(len(v.cited) for v in views),
    }


def _render_html(context: dict, path: Path) -> None:
    """The report into `path`, streamed piece by piece: for 5,000 rows the page as one string (and its
    encoded copy) was the peak of a run's memory (benchmarks/run_rows.py)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(Path(__file__).parent)),
        autoescape=True,  # always on: .j2 is not an extension select_autoescape would recognise
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    with open(path, "w", encoding="utf-8") as fh:
        env.get_template(TEMPLATE).stream(**context).dump(fh)


def _swap_into_place(built: Path, target: Path) -> None:
    """Replace `target` (a folder from an earlier report, if any) with `built` by renames only."""
    old = None
    if target.exists() or target.is_symlink():
        old = target.with_name(f".{target.name}-old-{uuid.uuid4().hex[:8]}")
        os.replace(target, old)
    os.replace(built, target)
    if old is not None:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink(missing_ok=True)


def _review_log(output_xlsx: Path) -> list[dict]:
    """The decisions made in `autofill review` (the workbook's Review log sheet), as dicts by column."""
    try:
        return [line.as_dict() for line in read_lines(output_xlsx)]
    except Exception as exc:  # noqa: BLE001 - the report stands without its log; say why
        log.warning("the Review log of %s could not be read: %s", Path(output_xlsx).name, exc)
        return []


def report_dir_for(output_xlsx: Path) -> Path:
    output_xlsx = Path(output_xlsx)
    return output_xlsx.with_name(f"{output_xlsx.stem}_review")


def write_review_report(settings, output_xlsx: Path, company: str | None = None,
                        pdf_paths: Mapping[str, Path | str] | None = None, dpi: int = 90, pack: bool = False) -> Path:
    """Write `<stem>_review/index.html` (+ `pages/*.png`) next to `output_xlsx`; return the HTML path.
    Links to PDFs and to the workbook are relative to the report folder.

    `company` defaults to the Run info sheet's; it names the evidence store whose records say where
    each PDF was ingested from. `pdf_paths` (file name -> PDF) takes precedence over the store.
    `pack`: a self-contained `<stem>_review_pack/` instead, with the cited PDFs and a copy of the
    workbook inside, plus `<stem>_review_pack.zip` (review/pack.py)."""
    output_xlsx = Path(output_xlsx).absolute()
    book = read_filled_workbook(output_xlsx)
    company = (company or book.info("company")).strip()
    file_names = sorted({e.file_name for q in book.questions for e in q.evidence}
                        | {f for q in book.questions for f, _ in q.cited_sources})
    workspace = Path(getattr(settings, "workspace", output_xlsx.parent))
    roots = [output_xlsx.parent.resolve(), workspace]
    sources, notes = locate_pdfs(settings, file_names, company=company, pdf_paths=pdf_paths,
                                 run_info_docs=book.info("documents"), search_roots=roots)
    # Also in the HTML, but whoever runs the command should hear of missing or changed PDFs now.
    for note in [*notes, *(src.note for src in sources.values() if src.note)]:
        log.warning("%s", note)

    target = pack_dir_for(output_xlsx) if pack else report_dir_for(output_xlsx)
    # Half-built reports of runs killed while writing one (tagged with their process, or older names).
    sweep(output_xlsx.parent, legacy=lambda name: name.startswith(f".{target.name}-"))
    try:
        build = make_temp_dir(output_xlsx.parent, target.name)
    except OSError as exc:
        raise InputError(f"cannot write the review report next to {output_xlsx}: {exc.strerror}") from None
    try:
        packed = fill_pack(build, output_xlsx, sources) if pack else {}
        pages = _Pages(sources, build / PAGES_DIR, dpi, Links(sources, target, packed))
        try:
            views = [_question_view(q, pages) for q in book.questions]
        finally:
            pages.close()
        notes += [sources[f].note for f in sorted(pages.missing) if sources.get(f) and sources[f].note]
        notes += [s.note for s in sources.values() if s.path is not None and s.note]
        notes += [f"pages of {f} could not be rendered: {why}" for f, why in sorted(pages.failed.items())]
        _render_html({
            "title": f"Review: {output_xlsx.name}",
            "output_name": output_xlsx.name,
            "output_uri": quote(output_xlsx.name) if pack else relative_link(output_xlsx, target),
            "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "summary": _summary(book, company, views),
            "questions": views,
            "tier_groups": _tier_groups(views),
            "run_info": book.run_info,
            "review_log": _review_log(output_xlsx),
            "notes": notes,
            "has_evidence_sheet": book.has_evidence_sheet,
        }, build / "index.html")
        os.chmod(build, 0o755)  # mkdtemp makes it private; the report is meant to be shared
        _swap_into_place(build, target)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    if pack:
        write_zip(target)
    return target / "index.html"
