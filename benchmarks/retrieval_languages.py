"""Retrieval across languages: every configuration on every development set and each of its translations
(benchmarks/devsets/translate_devset.py: `<set>_de`, `<set>_fr`, `<set>_es`), from per-question files,
with the held-out check of issue 33 (questions in another language against the same English reports:
page recall@6 at least 0.9 times the English questions', hit@6 within 0.1).

    python benchmarks/retrieval_languages.py FILE.json [FILE.json ...] [--baseline NAME] [--sets-out DIR]

A FILE is `retrieval_reembed.py --json` ({set: {configuration: per-question rows}}) or, named
`SET=FILE`, `retrieval_dev.py --json` ({configuration: rows}) for one set (`SET:NAME=FILE` renames its
one configuration). Configurations of the same name from several files are one configuration. Prints a
table per configuration (rows: sets, columns: languages; hit@6 / recall@6 / MRR) and the held-out check;
`--sets-out DIR` writes one file per set for benchmarks/retrieval_sets.py (paired tests, the no-loss
rule, leave-one-set-out)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from retrieval_dev import METRICS  # noqa: E402

LANG = re.compile(r"^(?P<set>.+?)_(?P<lang>de|fr|es|it|nl|pt)$")


def load(specs: list[str]) -> dict[str, dict[str, list[dict]]]:
    """{set: {configuration: rows}} from all files."""
    sets: dict[str, dict[str, list[dict]]] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep:
            for set_name, configs in json.loads(Path(spec).read_text()).items():
                sets.setdefault(set_name, {}).update(configs)
            continue
        set_name, _, rename = name.partition(":")
        configs = json.loads(Path(path).read_text())
        if rename:
            (configs,) = [{rename: rows} for rows in configs.values()]
        sets.setdefault(set_name, {}).update(configs)
    return sets


def split(set_name: str) -> tuple[str, str]:
    m = LANG.match(set_name)
    return (m["set"], m["lang"]) if m else (set_name, "en")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--sets-out", type=Path, default=None)
    args = ap.parse_args()
    sets = load(args.files)
    configs = list(dict.fromkeys(c for s in sets.values() for c in s))
    bases = sorted({split(s)[0] for s in sets})
    langs = [lang for lang in ("en", "de", "fr", "es", "it", "nl", "pt") if any(split(s)[1] == lang for s in sets)]
    for config in configs:
        print(f"\n### {config}: hit@6 / recall@6 / MRR\n")
        print("| set | " + " | ".join(langs) + " |\n|---|" + "---|" * len(langs))
        for base in bases:
            cells = []
            for lang in langs:
                rows = sets.get(base if lang == "en" else f"{base}_{lang}", {}).get(config)
                cells.append(" / ".join(f"{mean(r[k] for r in rows):.3f}" for k in ("hit6", "recall6", "mrr"))
                             if rows else "-")
            print(f"| {base} | " + " | ".join(cells) + " |")
        checks = []
        for base in bases:
            english = sets.get(base, {}).get(config)
            for lang in langs[1:]:
                other = sets.get(f"{base}_{lang}", {}).get(config)
                if not english or not other:
                    continue
                e_hit, e_rec = mean(r["hit6"] for r in english), mean(r["recall6"] for r in english)
                o_hit, o_rec = mean(r["hit6"] for r in other), mean(r["recall6"] for r in other)
                ratio = o_rec / e_rec if e_rec else 0.0
                ok = ratio >= 0.9 and e_hit - o_hit <= 0.1
                checks.append(f"| {base} | {lang} | {ratio:.2f} | {o_hit - e_hit:+.3f} | {'pass' if ok else 'fail'} |")
        if checks:
            print("\nheld-out check (recall@6 ratio to English >= 0.9, hit@6 within 0.1):\n")
            print("| set | language | recall@6 / English | hit@6 - English | |\n|---|---|---|---|---|")
            print("\n".join(checks))
    if args.sets_out:
        args.sets_out.mkdir(parents=True, exist_ok=True)
        for name, results in sets.items():
            (args.sets_out / f"{name}.json").write_text(json.dumps(results))
        print(f"\nper-set files for retrieval_sets.py in {args.sets_out} ({', '.join(k for k, _ in METRICS)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
