"""One rule for "is this the same question?" (issue 44), used wherever autofill decides it: the answer
library's entries (library/store.py, library/match.py), a changed questionnaire carried over from the old
output (workbook/carry.py), the portfolio's questions across companies (portfolio/workbook.py), the review
page's "add to library" (review_app/reanswer.py) and a checkpointed row's identity (answer/checkpoint.py,
which composes the rule with the row's place, form of answer and guidance).

The rule: two question texts are the same question when their keys are equal, and a text's key is

1. the text in Unicode NFKC form: composed and decomposed accents, full-width letters and digits,
   subscripts (CO₂), ligatures and non-breaking or other odd spaces read as their plain forms;
2. in lower case;
3. its words, and the few symbols that change what is asked (`%`, `‰`, `<`, `>`, `≤`, `≥`, `±`: "Total"
   is not "Total (%)", a guidance "<5%" is not ">5%"), joined by one space. Spacing, line breaks,
   zero-width characters, other punctuation and symbols (a trailing "?", "Scope 1, 2 and 3", brackets,
   quotes, dashes) count for nothing.

Accents stay (after NFKC, "é" is not "e"), and so do digits: "Scope 1 and 2" is not "Scope 12". A text
with no letter or digit has the key "" and is the same question as nothing, itself included.

The answer library keys its entries by this rule (its `qkey` column); a library keyed by an earlier
rule is re-keyed when it is opened (`RULE` names the rule; library/store.py compares it). Pure functions,
no package imports: it sits at the bottom, beside errors.py."""

from __future__ import annotations

import re
import unicodedata

RULE = "2"  # 1: words only; 2: words and the symbols that change what is asked
_WORD = re.compile(r"[^\W_]+|[%‰<>≤≥±]")


def question_key(text: object) -> str:
    """The normalised key of a question text (the rule above); "" when it has no letter or digit."""
    normal = unicodedata.normalize("NFKC", str(text or "")).lower()
    return " ".join(_WORD.findall(normal))


def same_question(a: object, b: object) -> bool:
    """Whether two question texts are the same question: equal, non-empty keys."""
    key = question_key(a)
    return bool(key) and key == question_key(b)
