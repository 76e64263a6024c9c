"""Contrast sets of the answer library's match (library/match.py, pure): the members of one set a
question names ("Scope 1", "market-based", "a policy", "adaptation", "ISO 50001" ...). Two questions
naming different members of one set ask different things however alike their wording; a set named on
one side only weighs less, and not at all for the sets in TWO_SIDED. Measured with
benchmarks/library_pairs.py (precision and recall of the match on labelled pairs)."""

from __future__ import annotations

import re

# Contrast sets: (name, [(label, pattern), ...]). Questions naming different labels of one set ask
# different things even when almost every other word is shared.
_CONTRASTS: list[tuple[str, list[tuple[str, re.Pattern]]]] = [
    ("relation", [
        ("reference", re.compile(r"\b(referenc\w*|refer|refers|referred|mention\w*|cite[sd]?|citing|acknowledg\w*)\b")),
        ("align", re.compile(r"\b(align\w*|consistent with|in line with|compatible with|in accordance with|"
                             r"according to|conform\w*|comply|complies|compliant)\b")),
    ]),
    ("horizon", [
        ("short", re.compile(r"\bshort[- ]term\b")),
        ("medium", re.compile(r"\b((medium|mid)[- ]term|interim)\b")),
        ("long", re.compile(r"\blong[- ]term\b")),
    ]),
    ("basis", [
        ("absolute", re.compile(r"\babsolute\b")),
        ("intensity", re.compile(r"\b(intensity|per unit|per (million|mwh|employee)|normali[sz]ed by)\b")),
    ]),
    ("chain", [
        ("upstream", re.compile(r"\bupstream\b")),
        ("downstream", re.compile(r"\bdownstream\b")),
    ]),
    ("topic", [
        ("water", re.compile(r"\bwater\b")),
        ("energy", re.compile(r"\b(energy|electricity|fuel)\b")),
        ("waste", re.compile(r"\bwaste\b")),
        ("biodiversity", re.compile(r"\b(biodiversity|nature|deforestation)\b")),
        ("safety", re.compile(r"\b(safety|injur\w*|fatalit\w*)\b")),
        ("diversity", re.compile(r"\b(gender|diversity|women|female)\b")),
    ]),
    ("instrument", [  # a target or goal, as against the figures achieved ("Scope 3 emissions" vs "Scope 3
        # targets"), and a policy or the actions taken, as against a target
        ("target", re.compile(r"\b(targets?|goals?|ambitions?|aims? (for|to)|commit(s|ted|ting|ments?)?|pledge\w*)\b")),
        ("policy", re.compile(r"(?<!on climate )(?<!on public )\bpolic(y|ies)\b(?! ?makers?)")),  # not lobbying's
        ("action", re.compile(r"\b(actions? (the company )?(took|taken)|actions the company took)\b")),
    ]),
    ("assurance", [
        ("validated", re.compile(r"\b(validat\w*|verif\w*|assur\w*|certif\w*)\b")),
    ]),
    # Sets below conflict only when both questions name a member: named on one side only, they are
    # ordinary rewording (TWO_SIDED).
    ("scope2 method", [
        ("location", re.compile(r"\b(location[- ]based|grid[- ]average)\b")),
        ("market", re.compile(r"\b(market[- ]based|supplier[- ]specific|contractual)\b")),
    ]),
    ("climate aim", [
        ("adaptation", re.compile(r"\badapt(ation|ing|s|ed)?\b")),
        ("mitigation", re.compile(r"\bmitigat\w*")),
    ]),
    ("risk step", [  # TCFD / IFRS S2: identify and assess, manage, integrate risks; oversee them; their impact
        ("identify", re.compile(r"\b(identif(y|ies|ying|ication)|assess(es|ed|ing)?)\b")),  # "risks once identified": no
        ("manage", re.compile(r"\bmanag(e|es|ed|ing)\b")),
        ("integrate", re.compile(r"\b(integrat\w*|embedded)\b")),
        ("oversee", re.compile(r"\b(overs(ee|ees|eeing|aw|ight)|supervis\w*)\b")),  # the board's governance
        ("impact", re.compile(r"\b(impacts?|influenc\w*)\b")),  # what the risks do to the strategy
    ]),
    ("risk kind", [
        ("physical", re.compile(r"\bphysical\b")),
        ("transition", re.compile(r"\btransition(al)? (climate[- ])?risks?\b")),
    ]),
    ("risk or opportunity", [
        ("risk", re.compile(r"\brisks?\b")),
        ("opportunity", re.compile(r"\bopportunit\w*")),
    ]),
    ("effects", [
        ("current", re.compile(r"\bcurrent\b")),
        ("anticipated", re.compile(r"\b(anticipated|expected|future)\b")),
    ]),
    ("year role", [
        ("base year", re.compile(r"\b(base(line)?[- ]?years?|baseline)\b")),
        ("target year", re.compile(r"\btarget[- ]years?\b")),
    ]),
    ("gross or net", [
        ("gross", re.compile(r"\bgross\b")),
        ("net", re.compile(r"\bnet\b(?![- ]?zero)")),
    ]),
    ("water flow", [
        ("withdrawal", re.compile(r"\bwithdr(aw|awn|awal|awals|ew)\b")),
        ("consumption", re.compile(r"\bconsum\w*")),
        ("discharge", re.compile(r"\bdischarg\w*")),
    ]),
    ("energy source", [
        ("fossil", re.compile(r"\bfossil\b")),
        ("nuclear", re.compile(r"\bnuclear\b")),
        ("renewable", re.compile(r"\brenewabl\w*")),
    ]),
    ("waste kind", [
        ("hazardous", re.compile(r"(?<!non-)\bhazardous\b")),
        ("non-hazardous", re.compile(r"\bnon-hazardous\b")),
        ("all waste", re.compile(r"\b(total waste|all waste|waste [a-z ]*in total)\b")),
        ("diverted", re.compile(r"\b(divert\w*|recycl\w*)\b")),
    ]),
    ("harm", [
        ("fatality", re.compile(r"\bfatalit\w*")),
        ("injury", re.compile(r"\b(injury (frequency )?rate|recordable|lost[- ]time)\b")),
    ]),
    ("stakeholder", [
        ("suppliers", re.compile(r"\b(suppliers?|supply chain)\b")),
        ("customers", re.compile(r"\b(customers?|clients?)\b")),
        ("policymakers", re.compile(r"\b(policy ?makers?|lobby\w*|(trade|industry) associations?|governments?)\b")),
    ]),
    ("solution area", [  # what a company's actions transform (report-analyst's question sets, say)
        ("efficiency", re.compile(r"\b(energy[- ]efficien\w*|efficiency)\b")),
        ("renewables", re.compile(r"\b(renewable energ\w*|energy system)\b")),
        ("buildings", re.compile(r"\b(buildings?|building stock)\b")),
        ("mobility", re.compile(r"\b(mobility|travel)\b")),
        ("circular", re.compile(r"\bcircular\w*")),
        ("grids", re.compile(r"\b(smart )?grids?\b")),
        ("storage", re.compile(r"\bstorage\b")),
        ("operations", re.compile(r"\bclimate[- ]neutral company operations?\b")),
    ]),
    ("standard", [  # management system standards named by their code
        ("iso 14001", re.compile(r"\biso ?14001\b")),
        ("iso 50001", re.compile(r"\biso ?50001\b")),
        ("iso 45001", re.compile(r"\biso ?45001\b")),
        ("emas", re.compile(r"\bemas\b")),
    ]),
    ("board or management", [
        ("board", re.compile(r"\b(board|directors)\b")),
        ("management", re.compile(r"\b(management's|role of management|management role|executives?)\b")),
    ]),
    # One-sided counts again: a question on these asks for something the other does not.
    ("definitions", [("definitions", re.compile(r"\b(definitions?|define[sd]?)\b"))]),
    ("business model", [("business model", re.compile(r"\bbusiness models?\b"))]),
    ("pay", [("pay", re.compile(r"\b(remunerat\w*|incentiv\w*|compensation|bonus\w*)\b"))]),
    ("removals", [("removals", re.compile(r"\b(removals?|removed|sequest\w*)\b"))]),
    ("reductions achieved", [("reductions", re.compile(r"\b(reductions (achieved|from)|emission reductions|avoided)\b"))]),
    ("breakdown", [("categories", re.compile(r"^(?!.*\btotal\b).*(?<!all )(?<!relevant )\bcategories\b|\bcategory \d+\b"))]),
    ("levers", [("levers", re.compile(r"\b(levers?|capital expenditure|capex)\b"))]),
    ("pollutants", [("pollutants", re.compile(r"\b(pollutants?|nox|sox|particulate\w*)\b"))]),
    ("trading", [("trading", re.compile(r"\b(emissions? trading|cap[- ]and[- ]trade|ets)\b"))]),
]
# Contrast sets whose labels conflict only when they share none: "current and anticipated effects"
# covers "expected effects", "risks and opportunities" covers "risks".
OVERLAP_OK = frozenset({"risk or opportunity", "effects"})
# Contrast sets whose label on one side only is no sign of another question (see above).
TWO_SIDED = frozenset({"year", "scope2 method", "climate aim", "risk step", "risk kind", "risk or opportunity",
                       "effects", "year role", "gross or net", "water flow", "energy source", "waste kind", "harm",
                       "stakeholder", "solution area", "standard", "board or management"})
_NOT = re.compile(r"\(not\b[^)]*\)|,\s*not\s+[^.;,)]*")
_SCOPE = re.compile(r"\bscopes?\s*((?:[123])(?:\s*(?:,|\+|&|/|and|-|–)\s*[123])*)", re.IGNORECASE)
_YEAR = re.compile(r"(?<![\d.,])(?:fy\s?)?((?:19|20)\d\d)(?![\d.,])", re.IGNORECASE)
_FY2 = re.compile(r"\bfy\s?(\d\d)\b", re.IGNORECASE)


def contrast_labels(text: str) -> dict[str, frozenset[str]]:
    """Contrast set -> the labels a question names (scopes and years included)."""
    t = _NOT.sub(" ", " ".join(str(text or "").lower().split()))  # "(not how they are managed)" names no step
    out: dict[str, frozenset[str]] = {}
    for name, members in _CONTRASTS:
        labels = frozenset(label for label, pattern in members if pattern.search(t))
        if labels:
            out[name] = labels
    scopes = frozenset(d for m in _SCOPE.finditer(t) for d in re.findall(r"[123]", m.group(1)))
    if scopes:
        out["scope"] = scopes
    years = {m.group(1) for m in _YEAR.finditer(t)} | {f"20{m.group(1)}" for m in _FY2.finditer(t)}
    if years:
        out["year"] = frozenset(years)
    return out
