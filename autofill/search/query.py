"""Search queries from a question row: pure functions, no I/O.

A questionnaire row says much more than what to look for. "Assume that you are a public equities analyst.
Answer in USD billions. Round your answer to two decimal places." and a form of answer such as "Short
answer with figures and units" are instructions to whoever answers, not words the evidence uses; for
BM25 they are rare terms ("decimal", "round", "analyst") that pull in unrelated passages. `lexical_query`
drops them and keeps the content: figures, years, financial and ESG terms, the statement named.

Questions and reports also name one thing in different words ("capital expenditure" in the question,
"purchases of property, plant and equipment" in the cash flow statement; "balance sheet" vs "statement
of financial position"). `expansions` adds the report-side wording of the terms a query uses, from a
small map of financial-statement and GHG-reporting vocabulary (SYNONYMS), to the lexical query.

Both lists are per language: the row's language (QuestionRow.language, detected from the questionnaire)
picks its instruction words (English, German, French and Spanish have lists); a language without a list
keeps every word (the keyword index drops its stop words: store/bm25_index.py). The synonyms, English
report wording, are added to every row: questions in other languages use the same loan words ("Scope 3",
"TCFD", "net zero"), and without them French questions lost MRR against English reports (README). A row
searched as its English translation (`lexical_query`'s `source`) also gets the English names of the terms
its own words name (search/terms.py: "fonds de roulement" -> "working capital" and its report wording).
"""

from __future__ import annotations

import re

from autofill.search.terms import english_keys
from autofill.languages import with_
from autofill.records import QuestionRow

# Words that instruct whoever answers rather than describe the evidence: questionnaire boilerplate
# (answer, round, decimal, analyst...), the form of answer's vocabulary (short, figures, units...) and
# filler verbs of instructions (using, relying, shown...), per language, as questionnaires in it phrase
# them: each language's module in autofill/languages/ holds its own. English stopwords are dropped by BM25.
INSTRUCTION_WORDS_BY_LANGUAGE: dict[str, frozenset[str]] = {
    code: lang.instruction_words for code, lang in with_("instruction_words").items()}
INSTRUCTION_WORDS = INSTRUCTION_WORDS_BY_LANGUAGE["en"]

_TOKEN = re.compile(r"[^\W_][\w&'\-]*(?:[.,]\d+)*%?")

# Report-side wording for terms questions use (lower case; a key matches whole words). Finance first, then
# GHG reporting. Kept to equivalences a reader of annual reports would take for granted.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "cash flow statement": ("consolidated statements of cash flows", "operating activities", "investing activities"),
    "statement of cash flows": ("consolidated statements of cash flows", "operating activities", "investing activities"),
    "balance sheet": ("consolidated balance sheets", "statement of financial position", "total assets",
                      "total liabilities"),
    "statement of financial position": ("consolidated balance sheets", "total assets", "total liabilities"),
    "income statement": ("consolidated statements of income", "statements of operations", "statements of earnings",
                         "net sales", "cost of sales"),
    "statement of income": ("consolidated statements of income", "statements of operations", "statements of earnings",
                            "net sales", "cost of sales"),
    "statement of operations": ("consolidated statements of operations", "statements of income", "net sales"),
    "p&l": ("consolidated statements of income", "statements of operations"),
    "capital expenditure": ("purchases of property, plant and equipment", "capital expenditures",
                            "additions to property"),
    "capital expenditures": ("purchases of property, plant and equipment", "additions to property"),
    "capex": ("capital expenditures", "purchases of property, plant and equipment"),
    "ppne": ("property, plant and equipment, net",),
    "pp&e": ("property, plant and equipment, net",),
    "fixed asset": ("property, plant and equipment, net",),
    "fixed assets": ("property, plant and equipment, net",),
    "revenue": ("net sales", "total revenues", "net revenues"),
    "revenues": ("net sales", "total revenues", "net revenues"),
    "sales": ("net sales", "revenues"),
    "cogs": ("cost of sales", "cost of goods sold", "cost of revenues"),
    "cost of goods sold": ("cost of sales", "cost of revenues"),
    "operating income": ("operating profit", "income from operations"),
    "operating margin": ("operating income", "net sales", "income from operations"),
    "ebitda": ("operating income", "depreciation and amortization"),
    "depreciation": ("depreciation and amortization",),
    "free cash flow": ("net cash provided by operating activities", "capital expenditures",
                       "purchases of property, plant and equipment"),
    "cash from operations": ("net cash provided by operating activities",),
    "operating cash flow": ("net cash provided by operating activities",),
    "cash flow from operating activities": ("net cash provided by operating activities",),
    "working capital": ("total current assets", "total current liabilities"),
    "inventory": ("inventories",),
    "inventory turnover": ("inventories", "cost of sales"),
    "accounts payable": ("accounts payable", "trade payables"),
    "dpo": ("accounts payable", "cost of sales", "inventories"),
    "total assets": ("total assets", "consolidated balance sheets"),
    "debt": ("long-term debt", "borrowings", "notes payable"),
    "dividends": ("dividends declared", "dividends paid", "cash dividends"),
    "effective tax rate": ("effective income tax rate", "provision for income taxes"),
    "eps": ("earnings per share", "diluted"),
    "net income": ("net earnings", "net income attributable"),
    "shareholders' equity": ("total stockholders' equity", "total equity"),
    "book value": ("total stockholders' equity", "total equity"),
    "ghg": ("greenhouse gas", "emissions", "co2-e"),
    "emissions": ("ghg", "greenhouse gas", "co2-e"),
    "net zero": ("net-zero",),
    "scope 1": ("operational emissions", "direct emissions"),
    "scope 2": ("operational emissions", "purchased electricity"),
    "scope 3": ("value chain emissions",),
    "carbon offsets": ("carbon credits", "offsets"),
    "internal carbon price": ("carbon price", "shadow carbon price"),
    "tcfd": ("task force on climate-related financial disclosures",),
    "sbti": ("science based targets initiative",),
    "executive remuneration": ("remuneration", "short-term incentive", "long-term incentive"),
    "scenario analysis": ("climate scenarios", "scenarios"),
    "physical risks": ("physical climate risks", "acute", "chronic"),
}
_SYNONYM_KEYS = sorted(SYNONYMS, key=len, reverse=True)
_KEY_PATTERNS = {k: re.compile(r"(?<![\w&])" + re.escape(k) + r"(?![\w&])") for k in SYNONYMS}


def instruction_words(language: str = "") -> frozenset[str]:
    """The instruction words of `language` ("": English); none for a language without a list."""
    return INSTRUCTION_WORDS_BY_LANGUAGE.get(language or "en", frozenset())


def content_words(text: str, language: str = "") -> list[str]:
    """The words and numbers of `text` minus the instruction words of its language, in order (case kept)."""
    drop = instruction_words(language)
    return [t for t in _TOKEN.findall(text) if t.lower().strip("'-") not in drop]


def expansions(text: str, language: str = "") -> list[str]:
    """Report-side phrasings (SYNONYMS) of the terms `text` uses, each once, longest terms first; a
    term inside a longer one that matched ("capital expenditures" inside itself, "sales" inside "net
    sales") is not matched again. Text in another `language`: its own names of those terms too
    (search/terms.py: "compte de résultat"), each followed by the English term it names."""
    lowered = text.lower()
    out: list[str] = []
    for key in _SYNONYM_KEYS:
        if _KEY_PATTERNS[key].search(lowered):
            lowered = _KEY_PATTERNS[key].sub(" ", lowered)
            out += [p for p in SYNONYMS[key] if p not in out]
    for key in english_keys(text, language):
        out += [p for p in (key, *SYNONYMS[key]) if p not in out]
    return out


def term_names(row: QuestionRow) -> list[str]:
    """The English names, and their report wording, of the terms `row` names in its own language
    (search/terms.py; "fonds de roulement" -> "working capital", "total current assets", ...), those its
    English loan words already give left out; [] for an English row or one naming none."""
    text = _text(row)
    own = set(expansions(text))
    return [p for p in expansions(text, row.language) if p not in own]


def _text(row: QuestionRow) -> str:
    parts = [row.question.strip(), row.form_of_answer.strip(), row.explanation.strip()]
    return "\n".join(p for p in parts if p)


def lexical_query(row: QuestionRow, expand: bool = True, source: QuestionRow | None = None) -> str:
    """The BM25 query for `row`: the question, form of answer and explanation, without the instruction
    words of its language, followed by the report-side synonyms of its terms (`expand`).
    `source`: the row in its own language when `row` is its English translation; the terms its own
    words name (search/terms.py) are added too, since a translation often misses them."""
    text = _text(row)
    out = " ".join(content_words(text, row.language))
    if expand:  # the reports' English wording: loan words ("Scope 3", "TCFD") match in any language
        extra = expansions(text)
        if source is not None:  # the terms' English names: only where the reports are read in English
            extra += [p for p in expansions(_text(source), source.language) if p not in extra]
        if extra:
            out = f"{out}\n{' '.join(extra)}"
    return out
