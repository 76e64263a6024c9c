"""Contrast labels of a question: the words that make two otherwise alike questions ask for different
datapoints (Scope 1 vs Scope 2, location- vs market-based, gross vs net, absolute vs intensity, a
target vs the figure achieved, board vs management ...). A concept in the catalogue names the labels it
stands for; a question naming another label of the same set never maps to it. Pure."""

from __future__ import annotations

import re

_SCOPE = re.compile(r"\bscopes?\s*((?:[123])(?:\s*(?:,\s*(?:and|or|&)?|\+|&|/|and|or|-|–)\s*(?:scope\s*)?[123]"
                    r"|\s+[123](?![\d.,]))*)")  # "scopes 1 2 3": a translation's words, "and" dropped

_TARGET = r"\btargets?\b|\bgoals?\b|\bcommit(ment|ted)?s?\b|\bambitions?\b|\bpledge"  # a target named

# set -> [(label, pattern)] over the lower-cased question.
DETECTORS: dict[str, list[tuple[str, re.Pattern]]] = {
    "method": [("location", re.compile(r"\blocation[- ]?based\b")),
               ("market", re.compile(r"\bmarket[- ]?based\b|\bcontractual instruments?\b"))],
    "accounting": [("gross", re.compile(r"\bgross\b|\bbefore (any )?(offsets|credits|removals)")),
                   ("net", re.compile(r"\bnet (ghg |greenhouse gas |carbon |co2 |scope \d )?emissions\b|\bnet of\b"
                                      r"|\bemissions,? net\b|\bafter (deducting |netting )?(any )?(offsets|credits|"
                                      r"removals)|\bnetted\b"))],
    "basis": [("absolute", re.compile(r"\babsolute\b")),
              ("intensity", re.compile(r"\bintensity\b|\bper (unit|million|tonne|mwh|employee|€|\$|usd|eur)"
                                       r"|\bper (net )?revenue\b|\bnormali[sz]ed\b"))],
    "activity": [("target", re.compile(_TARGET)),
                 ("policy", re.compile(r"\bpolic(y|ies)\b(?! ?makers)"))],
    "level": [("board", re.compile(r"\bboard\b|\bdirectors\b|\bsupervisory\b|\bgovernance body\b")),
              ("management", re.compile(r"\bmanagement\b|\bexecutives?\b(?! remunerat| pay| compensat)"
                                        r"|\bceo\b|\bmanagers?\b|\bsenior leaders"))],
    "risk": [("physical", re.compile(r"\bphysical\b|\bflood|\bheat ?waves?\b|\bdrought|\bacute\b|\bchronic\b")),
             ("transition", re.compile(r"\btransition risks?\b|\bstranded\b|\bpolicy and legal\b"))],
    "process": [("identify", re.compile(r"\bidentif\w*|\bassess(ing|es|ed|ment)?\b|\bscreen\w*|\bpriorit\w*")),
                ("manage", re.compile(r"\bmanag(e|es|ed|ing)\b|\bmitigat\w*|\brespond\w*|\bmonitor\w*")),
                ("integrate", re.compile(r"\bintegrat\w*|\benterprise[- ]wide\b|\benterprise risk\b|\boverall risk"))],
    "topic": [("emissions", re.compile(r"\bemissions?\b|\bghg\b|\bgreenhouse\b|\bco2|\bcarbon footprint\b|\btco2")),
              ("energy", re.compile(r"\benergy\b|\belectricity\b|\bfuels?\b|\bmwh\b|\bgwh\b|\bgj\b")),
              ("ods", re.compile(r"\bozone\b|\bods\b")),
              ("air", re.compile(r"\bnox\b|\bsox\b|\bair (pollut|emissions|quality)")),
              ("water", re.compile(r"\bwater\b")),
              ("waste", re.compile(r"\bwaste\b(?! heat)"))],
    "where": [("outside", re.compile(r"\boutside (the |of the |your |its )?(organi[sz]ation|company|own operations)")),
              ("products", re.compile(r"\b(sold )?products and services\b|\bsold products\b"
                                      r"|\bproducts (you|we|it|they) sell"))],
    "source": [("renewable", re.compile(r"\brenewable|\bgreen (electricity|power|energy)\b|\bre100\b")),
               ("fossil", re.compile(r"\bfossil\b|\bcoal\b|\bnatural gas\b|\bnon[- ]renewable|\b(oil|gaseous) fuels?\b"
                                 r"|\b(revenues?|turnover) (\w+ )?(from )?(the )?(\w+ )?(?<!greenhouse )(oil|petroleum|gas|gaseous)\b"))],
    "engagement": [("value-chain", re.compile(r"\bsuppliers?\b|\bcustomers?\b|\binvestees?\b|\bvalue chain\b"
                                             r"|\b(down|up)stream (partners|companies)\b")),
                   ("policy", re.compile(r"\blobby\w*|\bpolicy ?makers\b|\bpublic policy\b|\btrade associations?\b"))],
    "pricing": [("internal", re.compile(r"\binternal (carbon )?pric|\bshadow pric|\binternal price")),
                ("regulation", re.compile(r"\bemissions? trading\b|\bets\b|\bcarbon tax|\bcap[- ]and[- ]trade\b"))],
    "targetkind": [("net-zero", re.compile(r"\bnet[- ]zero\b|\bcarbon[- ]neutral|\bclimate[- ]neutral|\bneutrality\b")),
                   ("validation", re.compile(r"\bscience[- ]based\b|\bsbti\b|\bvalidat\w*")),
                   ("progress", re.compile(r"\bprogress\w*|\bon track\b|\bperformance against\b"))],
    # A question asking for actions or measures and naming no target asks for the actions, not the target
    # they serve ("actions for the transformation to climate neutrality").
    "ask": [("target", re.compile(_TARGET + r"|\baim(s|ing)?\b|\bobjectives?\b")),
            ("actions", re.compile(r"\bactions?\b|\bmeasures\b|\binitiatives?\b|\blevers?\b|\bsolutions\b"))],
    "reward": [("yes", re.compile(r"\bremunerat\w*|\bincentiv\w*|\bbonus\w*|\bcompensation\b|\bpay\b|\bltip\b"))],
    "scope3": [("financed", re.compile(r"\bfinanced emissions\b|\bcategory 15\b|\bpcaf\b|\bportfolio emissions\b"))],
    "assurance": [("yes", re.compile(r"\bassur\w*|\bverif\w*|\baudit\w*|\bisae\b"))],
    "result": [("achieved", re.compile(r"\bachieved\b|\bdelivered\b|\brealised\b|\brealized\b|\bsaved\b|\bavoided\b"))],
}
KNOWN_SETS = frozenset(DETECTORS) | {"scope"}
_SCOPE_WORDS = [("1", re.compile(r"\bdirect (ghg |greenhouse gas |carbon |co2 )?emissions\b")),
                ("2", re.compile(r"\benergy[- ]indirect\b|\bindirect (ghg |greenhouse gas )?emissions from (purchased|"
                                 r"electricity|energy)")),
                ("3", re.compile(r"\bvalue[- ]chain emissions\b|\bother indirect\b|\bsupply[- ]chain emissions\b"
                                 r"|\bfinanced emissions\b|\bcategory 15\b")),
                ("total", re.compile(r"\btotal (amount of )?(ghg |greenhouse gas |carbon |co2 )?emissions\b|\bcarbon footprint\b"
                                     r"|\ball scopes\b|\boverall (ghg |greenhouse gas |carbon )?emissions\b"
                                     r"|\b(combined|sum|total) of (the |your |its |our )?scopes? ?1\b"))]


_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")  # CO₂ is CO2
_NEGATED = re.compile(r"\(not [^)]*\)|,\s*not [^.;?]*|\brather than [^.;?]*")


def without_negations(text: str) -> str:
    """"Process to manage risks (not how they are identified)" names only what it asks for."""
    return _NEGATED.sub(" ", " ".join(str(text or "").lower().translate(_SUBSCRIPTS).split()))


def question_labels(text: str) -> dict[str, frozenset[str]]:
    """Contrast set -> the labels `text` names (negated phrases left out)."""
    t = without_negations(text)
    out: dict[str, frozenset[str]] = {}
    for name, members in DETECTORS.items():
        labels = frozenset(label for label, pattern in members if pattern.search(t))
        if labels:
            out[name] = labels
    scopes = {d for m in _SCOPE.finditer(t) for d in re.findall(r"[123]", m.group(1))}
    if not scopes:
        scopes = {label for label, pattern in _SCOPE_WORDS if pattern.search(t)}
        if len(scopes) > 1:
            scopes.discard("total")
    elif _SCOPE_WORDS[3][1].search(t) and len(scopes) >= 2:
        scopes.add("total")
    if scopes:
        out["scope"] = frozenset(scopes)
        out["topic"] = out.get("topic", frozenset()) | {"emissions"}  # "Scope 2 figure" asks for emissions
    return out


def conflicts(question: dict[str, frozenset[str]], concept: tuple[tuple[str, str], ...]) -> list[str]:
    """The contrast sets where the question names labels and the concept's label is not among them."""
    return [name for name, label in concept if name in question and label not in question[name]]


# Sets that only keep a concept out, never count for one that agrees ("ask": a target named).
VETO_ONLY = frozenset({"ask"})
# Sets whose labels tell sibling concepts apart: a concept naming one the question does not name is a
# more specific answer than was asked for ("Scope 2 emissions": location- before market-based, both weaker).
SPECIFIC = frozenset({"method", "scope3", "source", "where", "result", "risk", "pricing", "targetkind", "reward"})


def unmatched(question: dict[str, frozenset[str]], concept: tuple[tuple[str, str], ...]) -> int:
    """How many of the concept's telling labels the question does not name."""
    return sum(1 for name, _ in concept if name in SPECIFIC and name not in question)
