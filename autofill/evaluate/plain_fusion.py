"""The bar every retrieval table shows beside the product: "plain fusion", the textbook baseline.

Page text (PyMuPDF, no OCR, no layout work) cut into 1,000-character windows, all-MiniLM-L6-v2 (the
product's local embedder) and BM25 (bm25s, English stopwords, no stemming), fused by reciprocal rank
fusion with k = 60, the question alone as the query; read the way the product lists its sources, as
the first distinct pages in rank order (6 for hit/recall/MRR, 30 for the pool). It needs no store:
the windows and their vectors are cached in `cache_dir` under the PDF's hash, so a second table costs
only the queries.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from autofill.evaluate.gold import GoldKey
from autofill.evaluate.metrics import RetrievedPassage, page_metrics
from autofill.pdflib import import_pymupdf

WINDOW = 1000
RRF_K = 60


def windows(text: str, size: int = WINDOW) -> list[str]:
    """`text` (whitespace collapsed) in consecutive windows of `size` characters; none for a blank page."""
    flat = " ".join(text.split())
    return [flat[i:i + size] for i in range(0, len(flat), size)]


@dataclass
class PlainIndex:
    keys: list[tuple[str, int]]  # (file name, 1-based page) of each window
    texts: list[str]
    vectors: object  # numpy array, one unit row per window
    bm25: object

    @classmethod
    def build(cls, pdfs: Sequence[Path], embedder, cache_dir: Path) -> "PlainIndex":
        import numpy as np


        keys: list[tuple[str, int]] = []
        texts: list[str] = []
        vectors = []
        for pdf in pdfs:
            digest = hashlib.sha256(Path(pdf).read_bytes()).hexdigest()[:16]
            cache = Path(cache_dir) / f"{digest}-{embedder.name.replace(':', '_')}.npz"
            if cache.is_file():
                data = np.load(cache, allow_pickle=False)
                file_keys = [tuple(k) for k in json.loads(str(data["keys"]))]
                file_texts = json.loads(str(data["texts"]))
                vecs = data["vectors"]
            else:
                pymupdf = import_pymupdf()
                file_keys, file_texts = [], []
                with pymupdf.open(str(pdf)) as doc:
                    for number, page in enumerate(doc, start=1):
                        for window in windows(page.get_text()):
                            file_keys.append((Path(pdf).name, number))
                            file_texts.append(window)
                vecs = np.asarray(embedder.embed_documents(file_texts), dtype=np.float32).reshape(len(file_texts), -1)
                cache.parent.mkdir(parents=True, exist_ok=True)
                tmp = cache.with_name(cache.stem + ".tmp.npz")
                np.savez(tmp, keys=json.dumps(file_keys), texts=json.dumps(file_texts), vectors=vecs)
                tmp.replace(cache)
            keys += [(str(k[0]), int(k[1])) for k in file_keys]
            texts += file_texts
            vectors.append(vecs)
        matrix = np.concatenate(vectors) if vectors else np.zeros((0, 384), dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = matrix / np.where(norms == 0, 1, norms)
        import bm25s

        bm25 = bm25s.BM25()
        bm25.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
        return cls(keys, texts, matrix, bm25)

    def dense_ranking(self, embedder, question: str) -> list[int]:
        import numpy as np

        q = np.asarray(embedder.embed_query(question), dtype=np.float32)
        q /= np.linalg.norm(q) or 1.0
        return list(np.argsort(-(self.vectors @ q), kind="stable"))

    def keyword_ranking(self, question: str) -> list[int]:
        import bm25s

        tokens = bm25s.tokenize([question], stopwords="en", show_progress=False, return_ids=False)
        if not tokens or not tokens[0]:
            return []
        ids, scores = self.bm25.retrieve(tokens, k=len(self.texts), show_progress=False, n_threads=1)
        return [int(i) for i, s in zip(ids[0], scores[0]) if s > 0]

    def pages(self, embedder, question: str, n: int = 30) -> list[tuple[str, int]]:
        """The first `n` distinct pages of the RRF fusion of the dense and BM25 rankings."""
        scores: dict[int, float] = {}
        for ranking in (self.dense_ranking(embedder, question), self.keyword_ranking(question)):
            for rank, i in enumerate(ranking, start=1):
                scores[i] = scores.get(i, 0.0) + 1.0 / (RRF_K + rank)
        out: list[tuple[str, int]] = []
        for i in sorted(scores, key=lambda j: (-scores[j], j)):
            if self.keys[i] not in out:
                out.append(self.keys[i])
                if len(out) == n:
                    break
        return out


def evaluate(index: PlainIndex, embedder, key: GoldKey, company: str, k: int = 6, pool: int = 30) -> list[dict]:
    """Per-question page metrics (retrieval_dev's row shape) of plain fusion over `index`."""
    rows = []
    for item in key.items:
        if not item.pages:
            continue
        pages = index.pages(embedder, item.question, pool)
        passages = [RetrievedPassage(rank=i, file=f, pages=(p,)) for i, (f, p) in enumerate(pages, start=1)]
        at_k = page_metrics(passages, item.pages, k)
        at_pool = page_metrics(passages, item.pages, pool)
        rows.append({"company": company, "number": item.number, "question": item.question, "hit6": at_k.hit,
                     "recall6": at_k.recall, "mrr": at_k.mrr, "recall30": at_pool.recall})
    return rows
