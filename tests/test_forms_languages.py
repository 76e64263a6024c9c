"""A form in another language than the reports (forms/run.run_form, issue 46 item 4): its datapoints are
searched across languages relative to the whole form, as a questionnaire's rows are (search/centring.py):
every datapoint row of a French-labelled form against an English report, in a store of the default
English-only embedder, goes through the form's centre, all on the same mean; a kept datapoint (typed by
hand in an earlier output) is still part of that centre, so a re-run searches the rest as the first run
did. Real PDF, real store, real embedders, offline (evidence-only drafts)."""

from __future__ import annotations

import numpy as np
import openpyxl
import pytest

from autofill.settings import Settings
from tests.answer_helpers import centred_searches
from tests.form_builders import build_named_form
from tests.forms_answer_helpers import build_report

COMPANY = "Acme Fabrication"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    from autofill.ingest.pipeline import ingest_paths

    root = tmp_path_factory.mktemp("forms-languages")
    report = ingest_paths(Settings(workspace=root), COMPANY, [build_report(root / "docs")])
    assert report.count("failed") == 0, report.files
    return root


def test_a_french_form_is_centred_on_all_its_datapoints(workspace, tmp_path, monkeypatch):
    from autofill.forms.reader import read_form
    from autofill.forms.run import run_form
    from autofill.search.retrieval import build_query, query_rows

    path = build_named_form(tmp_path / "vsme-fr.xlsx", language="French [fr]")
    form = read_form(path)
    assert form.language == "fr"
    seen = centred_searches(monkeypatch)
    report = run_form(Settings(workspace=workspace), COMPANY, path, out_dir=tmp_path / "out")
    settings = Settings(workspace=workspace)
    texts = {build_query(query_rows(settings, fa.result.question)[0]) for fa in report.answers}  # and the table
    assert len(texts) >= 5, texts
    # Each row's own text (French) is searched through the centre, every one on the same mean (their
    # English translations, searched too, on theirs; the question alone is searched plainly).
    means = [seen.get(text) for text in texts]
    assert all(mean is not None for mean in means), sorted(seen)
    first = means[0]
    assert all(np.allclose(mean, first) for mean in means)

    # A datapoint typed by hand into the output is kept, and the rest are searched on the same centre.
    wb = openpyxl.load_workbook(report.output)
    wb["Disclosures"]["C4"] = 1234.0
    wb.save(report.output)
    seen.clear()
    again = run_form(settings, COMPANY, path, output=report.output)
    assert "Émissions brutes de GES du scope 1" not in {fa.datapoint.label for fa in again.answers}
    rerun = [seen.get(build_query(query_rows(settings, fa.result.question)[0])) for fa in again.answers]
    assert rerun and all(mean is not None and np.allclose(mean, first) for mean in rerun)
