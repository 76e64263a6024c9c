"""What translating a questionnaire's rows into English costs (translation/translator.py): per row, the first
time (a run keeps each translation), for every hand-translated development questionnaire here
(benchmarks/devsets/<set>_<lang>), by the way a run translates them: Apertium where it has routes into
English (French through Spanish and through Catalan, side by side), else the FreeDict dictionary (its
words chosen with multilingual-e5-small's query vectors). Beside it, the same rows through the first
Apertium route alone, one by one (the way before two routes), and the run's way again on a translation
cache the first filled (a re-answer's or a re-run's, `vectordb/.query-cache/translations.sqlite`).

    python benchmarks/translation_speed.py [--repeats 2] [--sets bhp_expert_fr,bhp_de]

Needs scripts/install_dictionaries.sh's packages; a language neither serves is skipped. Wall time on
this machine, median of the repeats, a fresh translator each time (the dictionary is opened before the
clock starts, as a run opens it once)."""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEVSETS = ROOT / "benchmarks" / "devsets"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--sets", default="", help="comma-separated set folders (default: every translated one)")
    args = ap.parse_args()

    from autofill.search.retrieval import build_query
    from autofill.translation.translator import QueryTranslator, cache_path
    from autofill.translation.apertium import describe, translate
    from autofill.providers.local import LocalEmbedder
    from autofill.settings import load_settings
    from autofill.sqlite_cache import BlobCache
    from autofill.store.multilingual import MODEL
    from autofill.workbook.layout import read_questions

    settings = load_settings(ROOT, environ={})
    wanted = {s.strip() for s in args.sets.split(",") if s.strip()}
    folders = sorted(f for f in DEVSETS.glob("*_??") if (f / "questionnaire.xlsx").is_file()
                     and (not wanted or f.name in wanted))
    embedder = LocalEmbedder(MODEL)
    print("| set | rows | how | s a row (run's way) | first route, one by one | run's way, cache filled |")
    print("| --- | --- | --- | --- | --- | --- |")
    for folder in folders:
        _, rows = read_questions(settings, folder / "questionnaire.xlsx")
        language = rows[0].language if rows else ""
        probe = QueryTranslator(settings.retrieval.dictionaries, embedder, ["en"], settings.retrieval.apertium)
        found = probe.routes_for(language)
        if not found and probe.dictionary_for(language) is None:
            print(f"| {folder.name} | {len(rows)} | neither Apertium nor a dictionary | - | - | - |")
            continue
        runs, alone, kept = [], [], []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as tmp:
                for times in (runs, kept):  # a first run fills the cache, a second reads it
                    translator = QueryTranslator(settings.retrieval.dictionaries, embedder, ["en"],
                                                 settings.retrieval.apertium, BlobCache(cache_path(Path(tmp))))
                    translator.dictionary_for(language)  # opened once per run, before its rows
                    started = time.perf_counter()
                    translator.for_rows(rows)
                    times.append((time.perf_counter() - started) / len(rows))
            if found:
                started = time.perf_counter()
                for row in rows:
                    translate([build_query(row)], found[:1], settings.retrieval.apertium)
                alone.append((time.perf_counter() - started) / len(rows))
        how = f"Apertium {describe(found)}" if found else "dictionary"
        first = f"{statistics.median(alone):.3f}" if alone else "-"
        print(f"| {folder.name} | {len(rows)} | {how} | {statistics.median(runs):.3f} | {first} | "
              f"{statistics.median(kept):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
