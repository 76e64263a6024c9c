"""What the review page shows of each row: the question, its editable cells (with the drop-down list
of a drop-down question), Status, Tier and Checks (as the reviewer's last save left them: see
review_app/checking.py), and its passages with the sentences that carry the answer marked (the review
report's parts: review/report.py's passage views, review/highlights.py). Page images are not rendered
here: each cited page is an image URL the browser loads lazily (app.py renders it on first request)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from autofill.errors import InputError
from autofill.frameworks.coverage import cell_labels
from autofill.review.highlights import relevance
from autofill.review.report import TIER_CLASS, PassageView, _passage_view, _review_class, _status_class
from autofill.review.reader import ReviewQuestion
from autofill.review_app.session import ReviewSession, version_of
from autofill.states import Outcome, ReviewState, Tier, parse_review, parse_status, parse_tier

log = logging.getLogger(__name__)
PER_PAGE = 50
TIER_FILTERS = {t.key: t for t in Tier} | {"none": None}
REVIEW_FILTERS = {"approved": ReviewState.APPROVED, "needs_changes": ReviewState.NEEDS_CHANGES,
                  "rejected": ReviewState.REJECTED, "none": ReviewState.NONE}


@dataclass
class RowView:
    q: ReviewQuestion
    anchor: str
    state: dict[str, str]
    version: str
    review: ReviewState
    tier: Tier | None
    status_class: str
    checks: list[str]
    cited: list[PassageView] = field(default_factory=list)
    uncited: list[PassageView] = field(default_factory=list)
    choices: list[str] = field(default_factory=list)  # the Answer cell's drop-down values ([] none)

    @property
    def tier_class(self) -> str:
        return TIER_CLASS.get(self.tier, "none") if self.tier is not None else "none"

    @property
    def review_class(self) -> str:
        return _review_class(self.review.label)

    @property
    def locked(self) -> bool:
        return self.review is ReviewState.APPROVED

    @property
    def draft(self) -> bool:
        return parse_status(self.q.status) is Outcome.DRAFTED


def anchor(key: str) -> str:
    return "r-" + re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-").lower()


def split_checks(text: str) -> list[str]:
    return [c.strip() for c in (text or "").split(";") if c.strip()]


def trust_json(cells: dict[str, str] | None) -> dict:
    """A save's Tier and Checks for the page ({} when the save did not check the row)."""
    if cells is None:
        return {}
    return {"tier": cells.get("tier", ""), "checks": split_checks(cells.get("checks", ""))}


def row_view(q: ReviewQuestion, state: dict[str, str], trust: dict[str, str] | None = None,
             choices: list[str] | None = None) -> RowView:
    # Highlights follow the answer as it stands now (an edited answer marks other sentences).
    shown = ReviewQuestion(sheet=q.sheet, row=q.row, question=q.question, answer=state["answer"],
                           reasoning=state["reasoning"], sources=state["sources"], evidence=q.evidence)
    sources = shown.cited_sources
    any_marked = any(e.cited for e in q.evidence)
    tier, checks = (trust["tier"], trust["checks"]) if trust is not None else (q.tier, q.checks)
    view = RowView(q=q, anchor=anchor(q.key), state=state, version=version_of(state),
                   review=parse_review(state["review"]), tier=parse_tier(tier), status_class=_status_class(q.status),
                   checks=split_checks(checks), choices=list(choices or []))
    for e, rel in zip(q.evidence, relevance([e.score for e in q.evidence])):
        is_cited = e.cited or (not any_marked and any((e.file_name, n) in sources for n in e.pages))
        (view.cited if is_cited else view.uncited).append(_passage_view(e, is_cited, None, shown, rel))
    return view


def select(session: ReviewSession, tier: str = "", review: str = "", section: str = "",
           datapoint: str = "") -> list[str]:
    """Row keys in reading order (Needs work first) that pass the filters (`datapoint`: a label of the
    Framework datapoints cell, or "none" for rows that ask for none)."""
    with session._lock:
        keys = []
        for key in session.order:
            q, state = session.questions[key], session.states[key]
            now = session.trust.get(key, {}).get("tier", q.tier)  # as the reviewer's last save left it
            if tier in TIER_FILTERS and parse_tier(now) is not TIER_FILTERS[tier]:
                continue
            if review in REVIEW_FILTERS and parse_review(state["review"]) is not REVIEW_FILTERS[review]:
                continue
            if section and q.section != section:
                continue
            labels = cell_labels(q.datapoints) if datapoint else []
            if datapoint and (bool(labels) if datapoint == "none" else datapoint not in labels):
                continue
            keys.append(key)
        return keys


def page_rows(session: ReviewSession, keys: list[str], page: int, per_page: int = PER_PAGE) -> list[RowView]:
    chosen = keys[(page - 1) * per_page: page * per_page]
    with session._lock:
        return [row_view(_as_saved(session, k), dict(session.states[k]), session.trust.get(k), _choices(session, k))
                for k in chosen]


def _as_saved(session: ReviewSession, key: str) -> ReviewQuestion:
    """Row `key` as the workbook holds it, with the Status its last save gave it (session._status)."""
    from dataclasses import replace

    q = session.questions[key]
    status = session.statuses.get(key)
    return q if status is None else replace(q, status=status)


def _choices(session: ReviewSession, key: str) -> list[str]:
    try:
        return session.checker.choices(key)
    except (InputError, KeyError) as exc:  # a layout that cannot be read: the page still shows the row
        log.warning("drop-down list of %s not read: %s", key, exc)
        return []


def datapoints(session: ReviewSession) -> list[str]:
    """The datapoint labels the rows ask for, in reading order of first appearance."""
    seen: list[str] = []
    for key in session.order:
        seen += [label for label in cell_labels(session.questions[key].datapoints) if label not in seen]
    return seen


def sections(session: ReviewSession) -> list[str]:
    seen: list[str] = []
    for key in session.order:
        s = session.questions[key].section
        if s and s not in seen:
            seen.append(s)
    return seen
