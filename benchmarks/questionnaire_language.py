"""A whole questionnaire's language (autofill.language.questionnaire_language) when its questions are in one
language and its other columns in English, as a bank's template often has them: the hand-translated sets of
benchmarks/devsets/translations (German, Spanish, French, Italian, Dutch, Portuguese; questions written by
others, translated by hand), each read as a questionnaire three ways:

    questions   the questions alone, "Text" as the form of answer;
    guidance    and an English explanation on every row ("Guidance for question 7.");
    form        and an English form of answer ("Yes/No, with a short explanation").

`before`: the whole rows read together (language.detect_many of language.row_text, what questionnaire_language
read until the questions were read first); `now`: questionnaire_language. "" is "cannot tell" (rows then
searched as English).

    python3 benchmarks/questionnaire_language.py

Measured 2026-11-29 (13 sets): questions 13/13 either way; guidance before 9/13 (bhp es, it, pt and
bhp_expert es: "", the guidance's "for" counting as English, Danish and Norwegian), now 13/13; form before
11/13 (bhp es and it: ""), now 13/13.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autofill.language import detect_many, questionnaire_language, row_text  # noqa: E402
from autofill.records import QuestionRow  # noqa: E402

TRANSLATIONS = ROOT / "benchmarks" / "devsets" / "translations"
WAYS = {"questions": ("Text", ""), "guidance": ("Text", "Guidance for question {i}."),
        "form": ("Yes/No, with a short explanation", "")}


def rows_of(questions: list[str], way: str) -> list[QuestionRow]:
    form, explanation = WAYS[way]
    return [QuestionRow("Q", i, q, form_of_answer=form, explanation=explanation.format(i=i))
            for i, q in enumerate(questions, start=1)]


def main() -> int:
    sets = sorted(TRANSLATIONS.glob("*.json"))
    totals = {way: [0, 0] for way in WAYS}
    for path in sets:
        language = path.stem.rsplit(".", 1)[-1]
        questions = [" ".join(str(item["question"]).split()) for item in json.loads(path.read_text(encoding="utf-8"))]
        line = []
        for way in WAYS:
            before = detect_many(row_text(r) for r in rows_of(questions, way))
            now = questionnaire_language(rows_of(questions, way))
            totals[way][0] += before == language
            totals[way][1] += now == language
            line.append(f"{way} {before or '-'} -> {now or '-'}")
        print(f"{path.name:<24} {language}: " + ", ".join(line))
    for way, (before, now) in totals.items():
        print(f"{way:<10} right before {before}/{len(sets)}, now {now}/{len(sets)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
