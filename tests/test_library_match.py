"""Matching questions against the library: rewordings match, near-duplicates that ask another thing
(Scope 1 vs Scope 3, reference vs align with external targets, another year) do not, unrelated
questions do not. Fast tests use the deterministic FakeEmbedder; the slow ones the real local model."""

from __future__ import annotations

import pytest

from autofill.library.match import best_match, contrast_labels, features, prepare, strength
from tests.fakes import FakeEmbedder

THRESHOLD = 0.8  # the default library.threshold

LIBRARY = [
    "Does the company's transition plan reference external climate targets such as the Paris Agreement?",
    "Is the company's transition plan aligned with external climate targets such as the Paris Agreement?",
    "What were the company's Scope 1 emissions in FY2024?",
    "What were the company's Scope 3 emissions in FY2024?",
    "Does the company have a net zero target for Scope 1 and Scope 2 emissions?",
    "Which board committee oversees climate-related risks?",
]


def match(question: str, library=LIBRARY, embedder=None):
    emb = embedder or FakeEmbedder(dims=256)
    vectors = emb.embed_documents(library)
    scored = best_match(prepare(question), emb.embed_query(question), [prepare(q) for q in library], vectors)
    return (library[scored.index], scored.strength) if scored else (None, 0.0)


def test_contrast_labels():
    assert contrast_labels("Scope 1 and 2 emissions")["scope"] == {"1", "2"}
    assert contrast_labels("Scopes 1, 2 and 3")["scope"] == {"1", "2", "3"}
    assert contrast_labels("scope 1+2 target")["scope"] == {"1", "2"}
    assert contrast_labels("Does the plan reference the Paris goals?")["relation"] == {"reference"}
    assert contrast_labels("Is the plan in line with Paris?")["relation"] == {"align"}
    assert contrast_labels("emissions in FY2024 and FY23")["year"] == {"2024", "2023"}
    assert "year" not in contrast_labels("Scope 3 emissions of 16.2 Mt")


def test_the_same_question_reworded_in_order_and_case_matches():
    q, s = match("In FY2024, what were the Scope 1 emissions of the company?")
    assert q == LIBRARY[2] and s >= THRESHOLD
    q, s = match("WHICH BOARD COMMITTEE OVERSEES CLIMATE-RELATED RISKS")
    assert q == LIBRARY[5] and s == 1.0  # the same question, normalised


@pytest.mark.parametrize("question, other", [
    ("Does the company's transition plan reference external climate targets such as the Paris Agreement?", 1),
    ("Is the company's transition plan aligned with external climate targets such as the Paris Agreement?", 0),
    ("What were the company's Scope 1 emissions in FY2024?", 3),
    ("What were the company's Scope 3 emissions in FY2024?", 2),
])
def test_near_duplicates_are_not_confused(question, other):
    q, s = match(question)
    assert q == question and s == 1.0
    # Without the exact entry, its near-duplicate never reaches the threshold.
    rest = [x for x in LIBRARY if x != question]
    q2, s2 = match(question, rest)
    assert s2 < THRESHOLD, (q2, s2)
    emb = FakeEmbedder(dims=256)
    a, b = prepare(question), prepare(LIBRARY[other])
    f = features(sum(x * y for x, y in zip(emb.embed_query(question), emb.embed_query(LIBRARY[other]))), a, b)
    assert f.conflicts and strength(f) < 0.2


def test_another_year_is_a_conflict():
    f = features(0.97, prepare("Scope 1 emissions in FY2023?"), prepare("Scope 1 emissions in FY2024?"))
    assert f.conflicts == ("year",) and strength(f) < THRESHOLD


def test_unrelated_questions_do_not_match():
    for q in ("What is the gender pay gap?", "How many lost-time injuries were recorded?",
              "Does the company publish a modern slavery statement?"):
        assert match(q)[1] < THRESHOLD, q


def test_strength_is_monotone_and_bounded():
    a, b = prepare("Does the company have a climate policy?"), prepare("Does the company have a climate policy?")
    values = [strength(features(c, a, b)) for c in (0.0, 0.5, 0.9, 1.0)]
    assert values == sorted(values) and all(0.0 < v < 1.0 for v in values)


# ------------------------------------------------------------------------------------ real embedder

PARAPHRASES = [
    ("Has the organisation committed to net zero for its Scope 1 and 2 emissions?", 4),
    ("Which committee of the board is responsible for overseeing climate risk?", 5),
    ("Report your Scope 3 greenhouse gas emissions for FY2024.", 3),
    ("Does the transition plan make reference to external climate goals like the Paris Agreement?", 0),
]


@pytest.mark.slow
def test_real_embedder_paraphrases_match_and_near_duplicates_do_not():
    from autofill.providers.local import LocalEmbedder

    emb = LocalEmbedder()
    for question, want in PARAPHRASES:
        q, s = match(question, embedder=emb)
        assert q == LIBRARY[want] and s >= THRESHOLD, (question, q, s)
    for question, wrong in (("Is the transition plan consistent with the Paris Agreement's targets?", 0),
                            ("What were Scope 3 emissions in FY2024?", 2)):
        q, s = match(question, embedder=emb)
        assert q != LIBRARY[wrong] or s < THRESHOLD, (question, q, s)
    for question in ("What is the gender pay gap?", "How much water did the company withdraw?"):
        assert match(question, embedder=emb)[1] < THRESHOLD


# ------------------------------------------------------------------------------ by framework datapoint

SCOPE_WORDINGS = {  # one approved entry each; other customers word the same datapoint differently
    "ghg.scope1": ("What were the company's gross Scope 1 GHG emissions (tCO2e)?",
                   ["Direct GHG emissions from sources the company owns or controls, last financial year",
                    "ESRS E1-6 44(a)", "Please report your Scope 1 footprint for the reporting year."]),
    "ghg.scope2-location": ("Scope 2 emissions, location-based (tCO2e)",
                            ["Location-based Scope 2 GHG emissions for the year", "GRI 305-2-a"]),
    "ghg.scope2-market": ("Scope 2 emissions, market-based (tCO2e)",
                          ["Market-based Scope 2 GHG emissions for the year", "E1-6 paragraph 49(b)"]),
    "ghg.scope3": ("What were the company's gross Scope 3 emissions?",
                   ["Value chain (Scope 3) emissions, all categories", "CDP C6.5"]),
}


def test_an_approved_answer_serves_a_differently_worded_question_of_its_datapoint():
    library = [entry for entry, _ in SCOPE_WORDINGS.values()]
    emb = FakeEmbedder(dims=256)
    by_wording_only = 0
    for concept, (entry, wordings) in SCOPE_WORDINGS.items():
        for w in wordings:
            q, s = match(w, library)
            assert q == entry and s >= THRESHOLD, (w, q, s)
            plain = best_match(prepare(w, datapoints=False), emb.embed_query(w),
                               [prepare(x, datapoints=False) for x in library], emb.embed_documents(library))
            by_wording_only += plain is not None and library[plain.index] == entry and plain.strength >= THRESHOLD
    assert by_wording_only < sum(len(w) for _, w in SCOPE_WORDINGS.values())  # the datapoint is what serves them


def test_never_across_scopes_even_when_worded_alike():
    for concept, (entry, _) in SCOPE_WORDINGS.items():
        for other, (_, wordings) in SCOPE_WORDINGS.items():
            if other == concept:
                continue
            for w in wordings + [SCOPE_WORDINGS[other][0]]:
                q, s = match(w, [entry])
                assert s < THRESHOLD, (w, entry, s)
                f = features(0.99, prepare(w), prepare(entry))
                assert f.conflicts and strength(f) < THRESHOLD, (w, entry, f)


def test_a_datapoint_match_is_shown_never_reused_on_its_own():
    entry, wordings = SCOPE_WORDINGS["ghg.scope1"]
    f = features(0.3, prepare(wordings[0]), prepare(entry))
    assert f.same_datapoints and 0.8 <= strength(f) < 0.975  # below library.reuse_threshold
    # another year is still another question, whatever the datapoint
    f = features(0.9, prepare("Gross Scope 1 emissions in FY2023"), prepare("Gross Scope 1 emissions in FY2024"))
    assert "year" in f.conflicts and strength(f) < THRESHOLD


# ------------------------------------------------------------------- different questions, one topic

@pytest.mark.parametrize("a, b", [
    ("What are the company's location-based Scope 2 emissions?", "What are the company's market-based Scope 2 emissions?"),
    ("Does the company have a policy on climate change mitigation?",
     "Does the company have a target on climate change mitigation?"),
    ("Which actions does the company take for climate change adaptation?",
     "Which actions does the company take for climate change mitigation?"),
    ("What process does the company use to identify and assess climate-related risks?",
     "What process does the company use to manage climate-related risks?"),
    ("Which physical climate risks has the company identified?", "Which transition climate risks has the company identified?"),
    ("What is the base year of the company's emissions target?", "What is the target year of the company's emissions target?"),
    ("How much water did the company withdraw?", "How much water did the company consume?"),
    ("Does the company count with ISO 14001 certification?", "Does the company count with ISO 50001 certification?"),
    ("Process to identify climate risks (not how they are managed).",
     "Process to manage climate risks (not how they are identified)."),
])
def test_another_question_on_the_same_topic_is_never_offered_however_close_the_wording(a, b):
    """Wording nearly identical (cosine 0.97 whatever the embedder): the contrast decides."""
    f = features(0.97, prepare(a), prepare(b))
    assert f.conflicts and strength(f) < THRESHOLD, f


def test_one_sided_contrasts_the_issue_found():
    adaptation = prepare("Does the company disclose the definitions it uses for climate change adaptation?")
    for other in ("Does the company plan to adjust its business model to climate change?",
                  "Has the company described the process to identify climate risks?"):
        f = features(0.9, adaptation, prepare(other))
        assert "definitions" in f.one_sided and strength(f) < THRESHOLD, (other, f)
    # "committee" is no commitment: a board question does not name a target.
    assert "instrument" not in contrast_labels("Which board committee oversees climate-related risks?")


def test_a_datapoint_match_needs_the_same_question_not_only_the_same_datapoint():
    # Both map to the renewable electricity datapoint; one asks for the target.
    f = features(0.9, prepare("What share of renewable electricity does the company aim for?"),
                 prepare("What share of the company's electricity was renewable last year?"))
    assert not f.same_datapoints and strength(f) < THRESHOLD, f
    # A scope's definition names its scope: direct emissions are Scope 1, not all three scopes.
    f = features(0.6, prepare("What were the direct GHG emissions from sources your company owns or controls?"),
                 prepare("Combined total of Scope 1, 2 and 3 greenhouse gas emissions."))
    assert "scope" in f.conflicts and strength(f) < THRESHOLD, f


@pytest.mark.slow
def test_multilingual_e5_offers_the_same_question_only():
    """multilingual-e5 puts any two ESG questions near cosine 0.9: on MiniLM's coefficients it offered
    an approved answer on climate change adaptation definitions for the business-model question (0.88)
    and the risk-process question (0.80)."""
    from autofill.library.match import coefficients
    from autofill.providers.local import LocalEmbedder

    emb = LocalEmbedder("multilingual-e5-small")
    entry = "Does the company disclose the definitions it uses for climate change adaptation?"
    vectors = emb.embed_documents([entry])
    for question, same in (("Does the company plan to adjust its business model to climate change?", False),
                           ("Has the company described the process to identify climate risks?", False),
                           ("How does the company manage its water-related risks?", False),
                           ("Which definitions of climate change adaptation does the company apply?", True)):
        scored = best_match(prepare(question), emb.embed_query(question), [prepare(entry)], vectors,
                            coef=coefficients(emb.name))
        assert (scored.strength >= THRESHOLD) is same, (question, scored)
