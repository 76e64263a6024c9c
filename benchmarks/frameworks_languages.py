"""Framework datapoints of questions in German and French against their English versions (issue 46): the
questions of benchmarks/devsets/frameworks_external/gold.tsv that exist in other languages written by
others or translated by hand:

    vsme  EFRAG's VSME Digital Template 1.3.0, its own labels in English, German and French (its translation
          table, read as `autofill inspect --form-language de` reads it: forms/labels.py); nobody here wrote
          or translated them;
    ra    the report-analyst question sets (English read at run time from /work/shared/questionsets),
          translated by hand into benchmarks/devsets/translations/report_analyst.<lang>.json.

Per language and part (seen / unseen: frameworks_external.unseen's split) and per framework: top-1 / top-3
(frameworks_external.score), how many multi-datapoint questions get all their datapoints, and the same-top-1
rate: the share of questions whose first datapoint is the English version's (both none counts as same).
Methods: `as-is` (the rules on the text as written: what German rows got before) and `translated`
(frameworks/crosslingual.py: through the row's English words, as `inspect` and `run` map rows now).

    python benchmarks/frameworks_languages.py [--part seen|unseen|all] [--method as-is|translated|both]
        [--errors] [--json OUT]

Skips when the shared data is absent. `--apertium` measures the French route through Apertium instead of
the dictionary (slower: 410 s for 84 French questions on the shared 2-core machine, same-top-1 61% before the
glossary, against 49% through the dictionary; the shipped mapping uses the dictionary).

Measured 2026-11-28 (rules of 96 concepts; the glossaries were written with the seen part's errors in view,
the unseen part run once at the end; as-is = before, translated = frameworks/crosslingual.py):
    same top-1 as English      seen (84: vsme 46, ra 38)     unseen (46: vsme 23, ra 23)
      German   as-is -> now      17% -> 85%                    22% -> 85% (vsme 20/23, ra 19/23)
      French   as-is -> now      40% -> 82%                    46% -> 67% (vsme 14/23, ra 17/23)
    top-1 / top-3 (unseen): English 80/91, German 17/17 -> 70/80, French 43/48 -> 59/67
    per framework (unseen top-1, en / de / fr): CDP 86/81/67, ESRS 91/79/65, GRI 90/71/62, IFRS S2 85/80/65,
      TCFD 74/58/47, VSME 90/79/67; multi-datapoint questions with all datapoints: en 2/2, de 2/2, fr 1/2
      (seen: en 4/4, de 4/4, fr 3/4).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.frameworks_external import (GOLD, QUESTIONSETS, VSME, _CODE, question_texts,  # noqa: E402
                                            read_gold, score)

TRANSLATIONS = ROOT / "benchmarks" / "devsets" / "translations"
LANGUAGES = ("en", "de", "fr")
SOURCES = ("vsme", "ra")


def texts_in(language: str, english: dict) -> dict[tuple[str, str], str]:
    """(source, key) -> the question in `language` (English: frameworks_external's texts)."""
    if language == "en":
        return {k: v for k, v in english.items() if k[0] in SOURCES}
    from autofill.forms.reader import read_form

    out = {}
    for item in json.loads((TRANSLATIONS / f"report_analyst.{language}.json").read_text(encoding="utf-8")):
        out[("ra", str(item["id"]))] = " ".join(str(item["question"]).split())
    form = read_form(VSME, language=language, layout=False)
    for dp in form.datapoints:
        if dp.cells:
            out.setdefault(("vsme", str(dp.cells[0])), _CODE.sub("", dp.label))
    return out


def first(mapping) -> str:
    return mapping.concepts[0] if mapping.concepts else ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("seen", "unseen", "all"), default="all")
    ap.add_argument("--method", choices=("as-is", "translated", "both"), default="both")
    ap.add_argument("--errors", action="store_true", help="list the questions whose top-1 differs from English")
    ap.add_argument("--apertium", action="store_true",
                    help="translate through Apertium where it has a route (French: about 3 s a question here)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if not (QUESTIONSETS.is_dir() and VSME.exists() and GOLD.exists()):
        print("skipped: the shared question data is not under /work/shared")
        return 0
    from autofill.frameworks.catalogue import load_catalogue
    from autofill.frameworks.crosslingual import english_words, map_texts, translator_for
    from autofill.frameworks.mapping import Mapper
    from autofill.settings import load_settings
    from benchmarks.frameworks_mapping import table

    cat = load_catalogue()
    mapper = Mapper(cat)
    english = question_texts()
    rows = [r for r in read_gold() if r["source"] in SOURCES]
    texts = {lang: texts_in(lang, english) for lang in LANGUAGES}
    missing = [f"{lang} {r['source']}:{r['key']}" for lang in LANGUAGES for r in rows
               if (r["source"], r["key"]) not in texts[lang]]
    if missing:
        print(f"questions without a text: {missing[:10]}")
        return 1
    settings = load_settings(None)
    translator = translator_for(settings, apertium=args.apertium)
    methods = ("as-is", "translated") if args.method == "both" else (args.method,)
    parts = ("seen", "unseen") if args.part == "all" else (args.part,)
    out: dict = {}
    for part in parts:
        sel = [r for r in rows if r["part"] == part]
        keys = [(r["source"], r["key"]) for r in sel]
        base = mapper.map_many([texts["en"][k] for k in keys])
        results = {"en": score(cat, sel, base)}
        same: dict[str, str] = {}
        for lang in LANGUAGES[1:]:
            questions = [texts[lang][k] for k in keys]
            for method in methods:
                t0 = time.time()
                if method == "as-is":
                    maps = mapper.map_many(questions)
                else:
                    english = english_words([(lang, q) for q in questions], translator)
                    maps = map_texts(mapper, questions, [""] * len(questions), english)
                name = f"{lang} {method}"
                results[name] = score(cat, sel, maps)
                agree = sum(first(a) == first(b) for a, b in zip(maps, base))
                by_source = {s: (sum(first(a) == first(b) for a, b, r in zip(maps, base, sel) if r["source"] == s),
                                 sum(1 for r in sel if r["source"] == s)) for s in SOURCES}
                same[name] = (f"{agree}/{len(sel)} ({agree / max(1, len(sel)):.0%}); "
                              + ", ".join(f"{s} {a}/{n}" for s, (a, n) in by_source.items())
                              + f"  [{time.time() - t0:.1f} s]")
                if args.errors:
                    for r, a, b, q in zip(sel, maps, base, questions):
                        if first(a) != first(b):
                            print(f"[{part} {name}] {r['source']}:{r['key']} en={first(b) or '-'} got={list(a.concepts[:3])}"
                                  f"  {q[:100]}" + (f"\n      -> {english[questions.index(q)][:160]}" if method != "as-is" else ""))
        counts = ", ".join(f"{s} {sum(1 for r in sel if r['source'] == s)}" for s in SOURCES)
        print(f"\n{part}: {len(sel)} questions ({counts})")
        print(table(results))
        print("same top-1 as the English version:")
        for name, line in same.items():
            print(f"  {name:<14} {line}")
        out[part] = {"scores": results, "same_top1": same}
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
