"""Language detection accuracy: autofill.language.detect (hand-written function-word counts) against
py3langid (BSD-3, a 4.6 MB wheel, numpy only) on questionnaire rows and report pages of known language.

Rows (what routes every row: multilingual index, translation, stemming):
  - the hand-translated development sets of benchmarks/devsets/translations (de, es, fr, it, nl, pt) and the
    English questions of /work/shared (BHP gold, FinanceBench dev, report-analyst question sets);
  - each read two ways: the full row (question, form of answer, explanation: `language.row_text`) and the
    question alone (short rows matter most);
  - `row_languages` on mixed questionnaires: blocks of rows in two or three languages in one sheet.
Pages: benchmarks/sustainability_reports.py's generated reports (en, de, fr; page texts, no PDF) and the
text of the first pages of the English PDFs in /work/shared (BHP, FinanceBench).

"ours" counts "" (cannot tell) as its own outcome: it is not wrong (callers keep the questionnaire's or
English behaviour), so both "right" and "wrong" are shown. py3langid always answers; it is scored
unrestricted and restricted to the languages autofill knows (`language.LANGUAGES`).

    python3 benchmarks/language_detection.py [--pages 40]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from autofill import language  # noqa: E402

SHARED = Path("/work/shared")
TRANSLATIONS = ROOT / "benchmarks" / "devsets" / "translations"


def _rows() -> list[tuple[str, str, str, str]]:
    """(set, language, full row text, question alone)."""
    out = []
    for path in sorted(TRANSLATIONS.glob("*.json")):
        stem, lang = path.stem.rsplit(".", 1)
        for r in json.loads(path.read_text(encoding="utf-8")):
            full = " ".join((r.get("question", ""), r.get("form_of_answer", ""), r.get("explanation", "")))
            out.append((stem, lang, full, r.get("question", "")))
    bhp = SHARED / "datasets" / "bhp" / "gold.json"
    if bhp.exists():
        out += [("bhp", "en", r["question"], r["question"]) for r in json.loads(bhp.read_text())]
    for gold in sorted((SHARED / "datasets" / "financebench-dev").glob("*/gold.json")):
        out += [("financebench", "en", r["question"], r["question"]) for r in json.loads(gold.read_text())]
    try:
        import yaml
        for path in sorted((SHARED / "questionsets").rglob("*.yaml")):
            for q in (yaml.safe_load(path.read_text()) or {}).get("questions", []):
                text = str(q.get("text", ""))
                out.append(("questionsets", "en", f"{text} {q.get('guidelines', '')}", text))
    except ImportError:
        pass
    import sustainability_reports as sr
    for lang in sr.LANGUAGES:
        for question, form in sr.texts(lang).QUESTIONS:
            out.append(("generated", lang, f"{question} {form}", question))
    return out


def _generated_pages() -> list[tuple[str, str, str]]:
    import sustainability_reports as sr
    out = []
    for lang in sr.LANGUAGES:
        for name, sector, unit, site in sr.COMPANIES[:2]:
            report, _ = sr.build(name, sector, unit, site, 27, language=lang)
            for items in report.pages:
                parts = []
                for item in items:
                    for x in item[1:]:
                        if isinstance(x, str):
                            parts.append(x)
                        elif isinstance(x, list):
                            parts += [" ".join(map(str, c)) if isinstance(c, list) else str(c) for c in x]
                out.append(("generated", lang, "\n".join(parts)))
    return out


def _pdf_pages(limit: int) -> list[tuple[str, str, str]]:
    import pymupdf
    pdfs = sorted((SHARED / "datasets" / "bhp").glob("*.pdf"))
    pdfs += sorted((SHARED / "datasets" / "financebench-dev").glob("*/*.pdf"))[:6]
    out = []
    for pdf in pdfs:
        with pymupdf.open(pdf) as doc:
            for page in list(doc)[:limit]:
                text = page.get_text()
                if len(text.strip()) >= 200:  # a page with words to read, not a photo or a divider
                    out.append((pdf.stem, "en", text[:1000]))  # 1,000 characters, as document_language reads
    return out


def _score(items, guess) -> dict:
    right = wrong = unknown = 0
    by_lang: dict[str, Counter] = {}
    wrongs: Counter = Counter()
    for lang, text in items:
        got = guess(text)
        c = by_lang.setdefault(lang, Counter())
        c["n"] += 1
        if got == lang:
            right += 1
            c["right"] += 1
        elif not got:
            unknown += 1
            c["unknown"] += 1
        else:
            wrong += 1
            c["wrong"] += 1
            wrongs[f"{lang}->{got}"] += 1
    n = right + wrong + unknown
    return {"n": n, "right": right, "wrong": wrong, "unknown": unknown,
            "accuracy": round(right / n, 3) if n else 0.0,
            "by_language": {k: dict(v) for k, v in sorted(by_lang.items())},
            "commonest_wrong": wrongs.most_common(5)}


def _mixed(rows, langs: tuple[str, ...], guess_own) -> dict:
    """row_languages on one sheet holding the BHP rows in each of `langs`, one block per language."""
    blocks = []
    for lang in langs:
        stem = "bhp"
        if lang == "en":
            blocks += [("en", full) for s, lg, full, _ in rows if s == "bhp" and lg == "en"]
        else:
            blocks += [(lang, full) for s, lg, full, _ in rows if s == stem and lg == lang]
    texts = [t for _, t in blocks]
    own = [guess_own(t) for t in texts]
    counts = [language.markers(t) for t in texts]
    whole = language.detect_many(texts)
    got = language.row_languages(own, whole, counts)
    right = sum(1 for (lang, _), g in zip(blocks, got) if g == lang)
    return {"languages": "+".join(langs), "rows": len(blocks), "right": right}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=40, help="first pages read of each real PDF")
    args = ap.parse_args()
    import py3langid as langid
    from py3langid.langid import LanguageIdentifier, MODEL_DIR, MODEL_FILE
    known = sorted(language.LANGUAGES)
    full_id = LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE)
    known_id = LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE)
    known_id.set_languages([c for c in known if c in full_id.nb_classes])

    def lib(text: str) -> str:
        return full_id.classify(text)[0] if text.strip() else ""

    def lib_known(text: str) -> str:
        return known_id.classify(text)[0] if text.strip() else ""

    def ours_row(text: str) -> str:
        return language.detect(text, language.ROW_MIN_MARKERS)

    def gated(min_markers: int):
        """py3langid's verdict where ours has enough function words of any language to say anything."""
        def guess(text: str) -> str:
            sample = text[:language.SAMPLE]
            script = language.detect(sample, 10 ** 9)  # the script checks alone
            if script:
                return script
            return lib_known(sample) if sum(language.markers(sample).values()) >= min_markers else ""
        return guess

    rows = _rows()
    pages = _generated_pages() + _pdf_pages(args.pages)
    views = {
        "rows, full (question + form + explanation)": [(lg, full) for _, lg, full, _ in rows],
        "rows, question alone": [(lg, q) for _, lg, _, q in rows],
        "pages (generated en/de/fr + English PDFs)": [(lg, t) for _, lg, t in pages],
    }
    detectors = {"ours (row: ROW_MIN_MARKERS=2; page: detect)": None, "py3langid": lib,
                 "py3langid, known languages only": lib_known,
                 "py3langid where ours has enough function words": "gated"}
    result: dict = {}
    for view, items in views.items():
        result[view] = {}
        for dname, fn in detectors.items():
            if fn is None:
                fn = ours_row if view.startswith("rows") else language.detect
            elif fn == "gated":
                fn = gated(language.ROW_MIN_MARKERS if view.startswith("rows") else language.MIN_MARKERS)
            t0 = time.perf_counter()
            score = _score(items, fn)
            score["ms_per_text"] = round(1000 * (time.perf_counter() - t0) / max(1, len(items)), 3)
            result[view][dname] = score
    result["row_languages on mixed sheets"] = {
        dname: [_mixed(rows, langs, fn or ours_row) for langs in (("en", "de"), ("en", "es", "it"), ("fr", "nl"),
                                                                 ("de", "fr", "pt"))]
        for dname, fn in (("ours", None), ("py3langid, known languages only", lib_known))}
    print(json.dumps(result, indent=1, ensure_ascii=False))
    for view in views:
        print(f"\n{view}:")
        for dname, s in result[view].items():
            print(f"  {dname:50s} {s['right']}/{s['n']} right ({s['accuracy']:.1%}), {s['wrong']} wrong, "
                  f"{s['unknown']} cannot tell; {s['ms_per_text']} ms/text")
    return 0


if __name__ == "__main__":
    sys.exit(main())
