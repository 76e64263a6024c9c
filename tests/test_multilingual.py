"""store/multilingual.py: which stores need the multilingual index, and the index kept in line with the
store's chunks (only new or changed chunks embedded, gone ones dropped), searched across languages."""

from __future__ import annotations

from types import SimpleNamespace

from autofill.providers.local import LocalEmbedder
from autofill.records import Passage
from autofill.store import multilingual
from autofill.store.multilingual import MultilingualIndex, crosses


def test_only_a_bundled_english_only_embedder_crosses_languages():
    assert crosses("local:bge-small-en-v1.5", ["de", "en"]) and crosses("local:all-MiniLM-L6-v2", ["fr"])
    assert crosses("local:bge-small-en-v1.5", ["*"])
    assert not crosses("local:bge-small-en-v1.5", ["en", "", "en"])
    assert not crosses("local:multilingual-e5-small", ["de", "en"])
    assert not crosses("openai:text-embedding-3-small", ["de"]) and not crosses("cohere:embed-v4.0", ["ja"])


class Store:
    """The little of a store the index reads: its chunks' embedded texts and passages by id."""

    company, collection, embedder_name = "Anglo", "c_anglo", "local:bge-small-en-v1.5"

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def embed_texts(self) -> dict[str, str]:
        return dict(self.texts)

    def get_passages(self, ids):
        return [Passage(chunk_id=i, file_name="r.pdf", page_start=int(i[1:]), page_end=int(i[1:]), section="",
                        text=self.texts[i], score=0.0, rank=0) for i in ids if i in self.texts]

    def bm25_search(self, query, n, language=""):
        return [("bm25", query, n, language)]


def test_the_index_embeds_only_what_is_new_and_finds_passages_across_languages(tmp_path, monkeypatch):
    settings = SimpleNamespace(vectordb_dir=tmp_path)
    store = Store({"p1": "Scope 1 emissions fell to 2.4 million tonnes CO2e.",
                   "p2": "We withdrew 12.4 gigalitres of water from the desalination plant.",
                   "p3": "The board's sustainability committee oversees climate change."})
    e5 = LocalEmbedder(multilingual.MODEL)
    calls: list[int] = []
    real = LocalEmbedder.embed_documents
    monkeypatch.setattr(LocalEmbedder, "embed_documents", lambda self, texts: calls.append(len(texts)) or real(self, texts))

    index = MultilingualIndex(settings, store, e5)
    top = index.query(e5.embed_query("Wie viel Wasser wurde entnommen?"), 2)
    assert [p.chunk_id for p in top][:1] == ["p2"] and top[0].rank == 1 and calls == [3]
    assert index.bm25_search("Wasser", 5, "de") == [("bm25", "Wasser", 5, "de")]
    path = multilingual.index_path(settings, "c_anglo")
    assert path.is_file()

    # A later run: one chunk changed, one gone, one added; only the changed and the new are embedded.
    store.texts.update(p1="Scope 1 emissions fell to 2.1 million tonnes CO2e.", p4="Wind and solar supplied 45 per cent.")
    del store.texts["p3"]
    again = MultilingualIndex(settings, store, e5)
    top = again.query(e5.embed_query("Welcher Anteil des Stroms stammt aus Wind- und Solarenergie?"), 3)
    assert top[0].chunk_id == "p4" and {p.chunk_id for p in top} == {"p1", "p2", "p4"}
    assert calls == [3, 2]
    assert MultilingualIndex(settings, store, e5).query(e5.embed_query("Wasser"), 1) and calls == [3, 2]



# ---------------------------------------------------------------------------------- a damaged index
# What the hostile-use battery did: the index of an English-only store truncated, or emptied, then a German
# questionnaire run and a German question asked through the real CLI in fresh processes. Before, every row
# failed (BadZipFile, EOFError) on every re-run, naming neither the file nor the fix.

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tests.pdf_factory import make_pdf  # noqa: E402
from tests.race_helpers import cli  # noqa: E402


@pytest.fixture(scope="module")
def english_store(tmp_path_factory):
    from tests.test_cli_languages import ENGLISH_PAGES, GERMAN_HEADER, GERMAN_QUESTIONS, ingested, questionnaire

    root = tmp_path_factory.mktemp("damaged")
    ws = ["--workspace", str(root / "ws")]
    ingested(root / "ws", "Anglo", make_pdf(root / "Climate Report 2023.pdf", ENGLISH_PAGES))  # English only
    q = questionnaire(root / "Fragebogen.xlsx", GERMAN_HEADER, GERMAN_QUESTIONS, "Klima", "Kurzer Text")
    done = cli([*ws, "run", "--company", "Anglo", "--questionnaire", str(q), "--out", str(root / "first")])
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = multilingual.index_path(SimpleNamespace(vectordb_dir=root / "ws" / "vectordb"), "*").parent.glob("*.npz")
    return root, ws, q, path


def _german_run(root: Path, ws: list[str], q: Path, name: str):
    from tests.test_cli_languages import GERMAN_QUESTIONS, sources

    done = cli([*ws, "run", "--company", "Anglo", "--questionnaire", str(q), "--out", str(root / name), "--fresh",
                "--json"])
    report = json.loads(next((ln for ln in reversed(done.stdout.splitlines()) if ln.startswith("{")), "{}"))
    cited = {}
    if done.returncode == 0:
        (output,) = (root / name).glob("*.xlsx")
        cited = sources(output)
    right = sum(cited.get(question, "").split("; ")[0] == f"Climate Report 2023.pdf p. {page}"
                for question, page in GERMAN_QUESTIONS)
    return done, report, right


@pytest.mark.parametrize("damage", ["truncated", "empty"])
def test_a_damaged_index_is_rebuilt_once_with_one_warning_and_no_row_fails(english_store, damage):
    root, ws, q, path = english_store
    good = path.read_bytes()
    path.write_bytes(good[: len(good) // 2] if damage == "truncated" else b"")
    done, report, right = _german_run(root, ws, q, f"run-{damage}")
    assert done.returncode == 0 and report.get("failed") == 0, done.stderr[-3000:]
    assert right == 5
    warnings = [ln for ln in done.stderr.splitlines() if "was damaged" in ln]
    assert len(warnings) == 1 and str(path) in warnings[0] and "rebuilding it" in warnings[0], done.stderr[-3000:]
    with np.load(path) as data:  # whole again
        assert len(data["ids"]) == data["vectors"].shape[0] > 0
    again, report, right = _german_run(root, ws, q, f"again-{damage}")
    assert again.returncode == 0 and right == 5 and "was damaged" not in again.stderr

    # `ask` of a German question meets the same damage the same way.
    path.write_bytes(good[: len(good) // 3] if damage == "truncated" else b"")
    asked = cli([*ws, "ask", "--company", "Anglo", "Wie viel Wasser hat das Unternehmen im Jahr 2023 entnommen?",
                 "--json"], {"AUTOFILL_LLM__PROVIDER": "none"})
    assert asked.returncode == 0, asked.stderr[-3000:]
    data = json.loads(asked.stdout.splitlines()[-1])
    assert data["citations"][0] == {"file": "Climate Report 2023.pdf", "page": 3}, data
    assert sum("was damaged" in ln for ln in asked.stderr.splitlines()) == 1
