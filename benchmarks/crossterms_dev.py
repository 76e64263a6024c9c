"""Issue 33 experiment: keyword queries in the documents' language for rows searched across languages.

A row whose language differs from the documents' is searched with the store's multilingual index
(store/multilingual.py): its dense leg reads across languages, but its BM25 leg searches German words in
English text. Here each content word of the row's keyword query (search/query.lexical_query; the row's
language's stop words dropped) is mapped to its nearest word(s) in the store's own vocabulary (the letters-
only words of 3+ characters of its chunk texts, occurring at least --min-count times) by the cosine of their
multilingual-e5-small vectors ("query: " mark on both sides), no word lists. The mapped words then
    add:  form an extra BM25 list (in the documents' language) fused with the row's own lists;
    rep:  replace the row's BM25 query (searched in the documents' language);
    uni:  join the row's own keyword query in one BM25 list (searched as the row's is).
--floor drops a neighbour whose cosine is below it. Figures are `retrieval_dev.py --fast` ones, so they
compare with the product's (same harness, same stores); only rows routed to the multilingual index
(RowContext.searched_with) change.

    python benchmarks/crossterms_dev.py --variant rep --neighbours 1 --min-count 1 [--floor 0.9] \
        --cache DIR -- --fast --no-plain --no-ingest --data SET [--pdfs ... --company bhp] \
        --workspace WS --json OUT.json
    python benchmarks/crossterms_dev.py compare BASE_DIR VARIANT_DIR [SET ...]

`compare` reads one `--json` file per set from each folder (same names) and prints hit@6, recall@6 and MRR
per set and pooled, with paired Wilcoxon p-values (scipy) of the variant against the base. The vocabulary
vectors of each store are cached in --cache (keyed by the store's multilingual index path and min count);
the first use of a store pays for them (about 3 ms a word).

Figures (the 12 development sets that take the multilingual index: BHP and BHP expert questions in German,
French and Spanish against the English BHP reports; the generated reports in English, German and French with
questions in another language or their own; 456 questions; paired Wilcoxon against the product): the
variant that leave-one-set-out picks on every held-out set (rep, 2 neighbours, min count 1, no floor) gains
pooled recall@6 0.827 -> 0.859 (p 0.009) and MRR 0.660 -> 0.724 (p 2e-5), BHP expert German recall@6 0.489 ->
0.697 (English: 0.791), but loses on two sets: English reports with German questions (hit@6 1.000 -> 0.865,
p 0.008; recall@6 0.952 -> 0.837, p 0.019) and German reports with English questions (MRR 0.800 -> 0.695,
p 0.007). e5-small's vectors of single words align poorly across languages where it matters ("suppliers"
-> "lebensmittelhersteller" though "lieferanten" is in the store; "Frauen" -> "people"; "target" -> "der"),
and replacing the row's own words drops the names and loan words they shared with the report. Every variant
tried (add, rep, uni; 1 or 2 neighbours; min count 1 or 2; floor 0 or 0.9) loses significantly on at least
one set, so the product keeps the row's own keyword query."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

LETTERS = re.compile(r"[^\W\d_]{3,}")
TOKENS = re.compile(r"(?u)\b\w\w+\b")  # bm25s's token pattern
METRICS = (("hit@6", "hit6"), ("recall@6", "recall6"), ("MRR", "mrr"))
SETS = ("bhp_de", "bhp_expert_de", "bhp_fr", "bhp_expert_fr", "bhp_es", "bhp_expert_es", "en-reports.de-q",
        "en-reports.fr-q", "de-reports.en-q", "fr-reports.en-q", "de-reports.de-q", "fr-reports.fr-q")


class Mapper:
    """Maps a keyword query's words to the nearest words of a store's vocabulary (multilingual-e5-small)."""

    def __init__(self, neighbours: int, floor: float, min_count: int, cache: Path) -> None:
        self.neighbours, self.floor, self.min_count, self.cache = neighbours, floor, min_count, cache
        self._vocab: dict[str, tuple[list[str], object]] = {}
        self._model = None
        self.stats = {"vocab_words": 0, "vocab_s": 0.0, "queries": 0, "map_s": 0.0}

    def embed(self, words):
        import numpy as np

        if self._model is None:
            from autofill.providers.local import LocalEmbedder

            self._model = LocalEmbedder("multilingual-e5-small").load()
        out = np.vstack([self._model.encode([w], query=True)[0] for w in words]).astype(np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def vocabulary(self, index):
        import numpy as np

        key = f"{index.collection}-{hashlib.sha1(str(index.path).encode()).hexdigest()[:8]}-f{self.min_count}"
        if key not in self._vocab:
            path = self.cache / f"{key}.npz"
            if path.is_file():
                with np.load(path) as data:
                    self._vocab[key] = (list(data["words"]), data["vectors"])
            else:
                started = time.process_time()
                counts = Counter(w.lower() for text in index.store.embed_texts().values()
                                 for w in LETTERS.findall(text))
                words = sorted(w for w, c in counts.items() if c >= self.min_count)
                vectors = self.embed(words)
                self.stats["vocab_s"] += time.process_time() - started
                self.stats["vocab_words"] += len(words)
                self.cache.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f"{path.stem}.{os.getpid()}.npz")
                np.savez(tmp, words=np.array(words, dtype=str), vectors=vectors)
                os.replace(tmp, path)
                self._vocab[key] = (words, vectors)
        return self._vocab[key]

    def mapped(self, index, text: str, language: str) -> str:
        """The store-vocabulary words nearest to `text`'s content words (tokens with digits kept as they are)."""
        import bm25s.stopwords
        import numpy as np

        from autofill.language import LANGUAGES

        lang = LANGUAGES.get(language or "en")
        stop = set(getattr(bm25s.stopwords, lang.stopwords)) if lang and lang.stopwords else set()
        words, vectors = self.vocabulary(index)
        started = time.process_time()
        content = [w.lower() for w in TOKENS.findall(text) if w.lower() not in stop]
        kept = [w for w in content if any(c.isdigit() for c in w)]
        letters = list(dict.fromkeys(w for w in content if LETTERS.fullmatch(w)))
        out: list[str] = []
        if letters and words:
            for row in self.embed(letters) @ vectors.T:
                out += [words[i] for i in np.argsort(-row)[:self.neighbours] if row[i] >= self.floor]
        self.stats["map_s"] += time.process_time() - started
        self.stats["queries"] += 1
        return " ".join(out + kept)


def documents_language(store) -> str:
    languages = Counter(d.language or "en" for d in store.documents().values())
    return languages.most_common(1)[0][0] if languages else "en"


def patch(variant: str, mapper: Mapper) -> None:
    """Route rows searched with the multilingual index through the variant's keyword lists."""
    from autofill.search import retrieval as R
    from autofill.search.query import lexical_query
    from autofill.store.multilingual import MultilingualIndex

    product = R.retrieve

    def retrieve(settings, store, embedder, row, mode, hyde_passage="", n=None, extra_queries=()):
        if not isinstance(store, MultilingualIndex) or hyde_passage or extra_queries:
            return product(settings, store, embedder, row, mode, hyde_passage, n, extra_queries)
        mode = R.RETRIEVAL_MODES[mode] if isinstance(mode, str) else mode
        r = settings.retrieval
        n = n or r.candidates
        rows, depth = R.query_rows(settings, row), 2 * n
        lists = [R._dense(store, embedder, R.build_query(q), depth) for q in rows]
        weights = [1.0] * len(lists)
        target = documents_language(store)
        for q in rows if mode.uses_keyword else ():
            text = lexical_query(q, expand=r.synonyms)
            mapped = mapper.mapped(store, text, row.language)
            searches = {"add": [(text, row.language), (mapped, target)], "rep": [(mapped, target)],
                        "uni": [(f"{text}\n{mapped}", row.language)]}[variant]
            for query, language in searches:
                if query.strip():
                    lists.append(R._stable(R.keyword_search(store, query, depth + R._SLACK, language), depth))
                    weights.append(r.keyword_weight)
        return R.fuse(lists, k=r.rrf_k, n=n, weights=weights, per_page=R.PAGE_CHUNKS)

    R.retrieve = retrieve


def compare(base: Path, variant: Path, sets: list[str]) -> None:
    from scipy.stats import wilcoxon

    def load(folder: Path, name: str) -> dict:
        rows = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))["default"]
        return {(r["company"], str(r["number"])): r for r in rows}

    def p(a: list[float], b: list[float]) -> str:
        return "1" if a == b else f"{wilcoxon(a, b).pvalue:.3g}"

    pooled: dict[str, tuple[list[float], list[float]]] = {m: ([], []) for _, m in METRICS}
    print("| set | n | " + " | ".join(f"{label} base -> variant" for label, _ in METRICS) + " | p: "
          + ", ".join(label for label, _ in METRICS) + " |")
    print("|---|---|" + "---|" * (len(METRICS) + 1))

    def line(name: str, pairs: dict) -> str:
        cells = [f"{sum(a) / len(a):.3f} -> {sum(b) / len(b):.3f}" for a, b in pairs.values()]
        n = len(next(iter(pairs.values()))[0])
        return f"| {name} | {n} | " + " | ".join(cells) + " | " + ", ".join(p(a, b) for a, b in pairs.values()) + " |"

    for name in sets:
        before, after = load(base, name), load(variant, name)
        keys = sorted(before)
        if set(keys) != set(after):
            raise SystemExit(f"{name}: the two runs scored different questions")
        pairs = {m: ([before[k][m] for k in keys], [after[k][m] for k in keys]) for _, m in METRICS}
        for m, (a, b) in pairs.items():
            pooled[m][0].extend(a)
            pooled[m][1].extend(b)
        print(line(name, pairs))
    print(line("pooled", pooled))


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "compare":
        compare(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:] or list(SETS))
        return 0
    own, rest = (sys.argv[1:sys.argv.index("--")], sys.argv[sys.argv.index("--") + 1:]) if "--" in sys.argv \
        else (sys.argv[1:], [])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=("off", "add", "rep", "uni"), default="rep")
    parser.add_argument("--neighbours", type=int, default=1)
    parser.add_argument("--floor", type=float, default=0.0)
    parser.add_argument("--min-count", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=Path(".crossterms-cache"))
    args = parser.parse_args(own)
    mapper = Mapper(args.neighbours, args.floor, args.min_count, args.cache)
    if args.variant != "off":
        patch(args.variant, mapper)
    import retrieval_dev

    sys.argv = ["retrieval_dev.py", *rest]
    try:
        return retrieval_dev.main()
    finally:
        s = mapper.stats
        print(f"crossterms {args.variant}: vocabulary {s['vocab_words']} words embedded in {s['vocab_s']:.1f} CPU-s; "
              f"{s['queries']} keyword queries mapped in {s['map_s']:.2f} CPU-s "
              f"({1000 * s['map_s'] / max(1, s['queries']):.0f} ms each)", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
