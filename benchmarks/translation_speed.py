"""What translating a questionnaire's rows into English costs (translation/translator.py): per row, the first
time (a run keeps each translation), for every hand-translated development questionnaire here
(benchmarks/devsets/<set>_<lang>), by the way a run translates them: Apertium where it has routes into
English (French through Spanish and through Catalan, side by side), else the FreeDict dictionary (its
words chosen with multilingual-e5-small's query vectors). Beside it, the same rows through the first
Apertium route alone, one by one (the way before two routes), and the run's way again on a translation
cache the first filled (a re-answer's or a re-run's, `vectordb/.query-cache/translations.sqlite`).

    python benchmarks/translation_speed.py [--repeats 2] [--sets bhp_expert_fr,bhp_de]
    python benchmarks/translation_speed.py --load [--repeats 2]

`--load` (issue 46): what opening the German-English dictionary costs a fresh process, the way it was
(read whole in every process) and through its compact file (translation/dictionary_cache.py, made by the
first process, then looked up word by word): `autofill inspect` of the German development questionnaire
(benchmarks/devsets/bhp_de) and 100 German rows (the German development questionnaires' rows, repeated)
translated by the dictionary with no multilingual model (the datapoint mapping's way), each in a fresh
process: wall time and peak memory (max RSS), median of the repeats. The compact file is made in a
temporary cache folder (AUTOFILL_CACHE_DIR) by one process first, and its time is printed too.

Needs scripts/install_dictionaries.sh's packages; a language neither serves is skipped. Wall time on
this machine, median of the repeats, a fresh translator each time (the dictionary is opened before the
clock starts, as a run opens it once)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
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
    ap.add_argument("--load", action="store_true", help="the dictionary's load in fresh processes (issue 46)")
    args = ap.parse_args()
    if args.load:
        return load_main(args.repeats)

    from autofill.records import build_query
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


# A fresh process: `whole` reads the dictionary whole (the way before the compact file), then runs `inspect`
# or translates 100 German rows; prints its own peak memory.
CHILD = """
import json, resource, sys
from dataclasses import replace
sys.path.insert(0, {root!r})
import autofill.translation.dictionary_cache as cache
if {whole!r}:
    cache.COMPACT_FROM = float("inf")
if {job!r} == "inspect":
    from click.testing import CliRunner
    from autofill.cli import cli
    result = CliRunner().invoke(cli, ["inspect", {questionnaire!r}])
    assert result.exit_code == 0, result.output
else:
    from autofill.settings import load_settings
    from autofill.translation.translator import QueryTranslator
    from autofill.workbook.layout import read_questions
    settings = load_settings({root!r}, environ={{}})
    rows = [r for q in {questionnaires!r} for r in read_questions(settings, q)[1]]
    rows = (rows * (100 // len(rows) + 1))[:100]
    rows = [replace(r, question=f"{{r.question}} ({{i}})") for i, r in enumerate(rows)]  # each translated
    texts = QueryTranslator(settings.retrieval.dictionaries, None, ["en"], "").for_rows(rows)
    assert sum(bool(t) for t in texts) == 100, texts
print(json.dumps({{"max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def _fresh(job: str, whole: bool, cache: str) -> tuple[float, float]:
    """(wall s, peak MB) of one fresh process doing `job`."""
    questionnaires = [str(DEVSETS / s / "questionnaire.xlsx") for s in ("bhp_de", "bhp_expert_de")]
    code = CHILD.format(root=str(ROOT), whole=whole, job=job, questionnaire=questionnaires[0],
                        questionnaires=questionnaires)
    env = {**os.environ, "AUTOFILL_CACHE_DIR": cache, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - started
    return wall, json.loads(done.stdout.strip().splitlines()[-1])["max_rss_mb"]


def load_main(repeats: int) -> int:
    from autofill.settings import load_settings
    from autofill.translation.dictionaries import find

    settings = load_settings(ROOT, environ={})
    if find(settings.retrieval.dictionaries, "de", "en") is None:
        print("no German-English dictionary (scripts/install_dictionaries.sh)")
        return 1
    with tempfile.TemporaryDirectory() as cache:
        made, made_mb = _fresh("inspect", False, cache)  # the first process makes the compact file
        print(f"compact file made by the first `inspect`: {made:.1f} s, peak {made_mb:.0f} MB")
        print("| job | dictionary | wall s | peak MB |")
        print("| --- | --- | --- | --- |")
        for job, what in (("inspect", "`inspect` bhp_de (15 rows)"), ("rows", "100 German rows translated")):
            for whole, how in ((True, "read whole (before)"), (False, "compact file")):
                runs = [_fresh(job, whole, cache) for _ in range(repeats)]
                print(f"| {what} | {how} | {statistics.median(r[0] for r in runs):.2f} | "
                      f"{statistics.median(r[1] for r in runs):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
