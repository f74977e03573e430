"""The question-set report: overlapping references, duplicates, lexical closeness and its baseline."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chunkviz.evaluation.questions import Question, Reference
from chunkviz.evaluation.questionset import content_words, question_set_report

DOC = "Alpha beta gamma delta. " * 10 + "The warranty covers the pump for two years. " + "Filler words here. " * 10
WARRANTY = DOC.index("The warranty")
CORPUS = {"doc": DOC}


def ref(start: int, end: int) -> Reference:
    return Reference("doc", start, end)


def test_content_words_are_bm25s_terms() -> None:
    assert content_words("How long does THE warranty cover the pump?") == {
        "how",
        "long",
        "doe",
        "warranti",
        "cover",
        "pump",
    }


def test_counts_overlaps_and_duplicates() -> None:
    warranty = ref(WARRANTY, WARRANTY + 44)
    questions = [
        Question("How long is the pump covered?", (warranty,)),
        Question("how long is the PUMP covered", (ref(0, 10),)),  # same wording as the first
        Question("What does the warranty cover?", (warranty,)),  # same references as the first
        Question("Alpha and beta?", (ref(0, 12), ref(6, 20))),  # references overlap
    ]
    report = question_set_report(questions, CORPUS)
    assert (report.questions, report.overlapping_references) == (4, 1)
    assert (report.duplicate_wording, report.duplicate_references) == (1, 1)


def test_closeness_is_the_share_of_question_words_in_the_references() -> None:
    question = Question("How long does the warranty cover the pump?", (ref(WARRANTY, WARRANTY + 44),))
    report = question_set_report([question], CORPUS)
    # question terms: how, long, doe(s), warranti, cover, pump; the reference has warranti, cover(s), pump
    assert report.closeness == (3 / 6,)
    assert report.baseline == (0.0,)
    assert report.mostly_reused == 1  # at least half


def test_a_question_of_stop_words_has_no_closeness() -> None:
    report = question_set_report([Question("Is it a...?", (ref(0, 5),))], CORPUS)
    assert report.closeness == (None,) and report.mean_closeness is None
    assert report.lines() == [
        "question set: 1 questions; 0 with overlapping references; 0 worded like another question; "
        "0 with the same references as another"
    ]


def test_no_baseline_when_the_document_is_too_short_for_a_disjoint_passage() -> None:
    report = question_set_report([Question("alpha", (Reference("d", 0, 10),))], {"d": "alpha beta gamma"})
    assert report.closeness == (1.0,) and report.baseline == (None,)


def test_lines_name_the_keyword_advantage_when_words_are_reused() -> None:
    question = Question("warranty pump years", (ref(WARRANTY, WARRANTY + 44),))
    lines = question_set_report([question], CORPUS).lines()
    assert lines[1] == (
        "question words found in their references: 100% on average (a passage of the same length elsewhere: 0%); "
        "1 of 1 questions reuse at least half their words"
    )
    assert "keyword retrieval" in lines[2]


@given(st.integers(0, 399), st.integers(1, 200), st.integers(400, 2000))
def test_the_baseline_passage_never_touches_the_reference(start: int, length: int, size: int) -> None:
    from chunkviz.evaluation.questionset import _elsewhere

    reference = Reference("d", start, min(start + length, size))
    text = "x" * size
    passage = _elsewhere(reference, text)
    if passage is not None:
        assert len(passage) == reference.length
        # the passage is taken at a fixed position: recompute it to check it misses the reference
        passage_start = min((reference.start + size // 2) % size, size - reference.length)
        assert passage_start + reference.length <= reference.start or passage_start >= reference.end
    else:
        assert size < 4 * reference.length
