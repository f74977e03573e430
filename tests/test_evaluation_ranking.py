"""Ranking metrics (NDCG@k, MAP, recall@c) and document-level labels: hand-computed cases, and
``chunkviz eval --json`` against an independent implementation (ir-measures: trec_eval's C code)
on the same runs: the samples' question sets and Chroma's."""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from support.paths import SHARED

from chunkviz.api import chunk
from chunkviz.cli.commands import main
from chunkviz.document.read import read_path
from chunkviz.evaluation.metrics import DocumentSpan, document_scores, question_scores, ranking_scores, summarize
from chunkviz.evaluation.questions import QuestionFileError, load_questions, questions_to_jsonl
from chunkviz.evaluation.retrieval import searchable

SAMPLES = Path(__file__).resolve().parents[1] / "chunkviz" / "sample_docs"
CHROMA = SHARED / "eval" / "chroma"  # <repo>/../shared/eval/chroma unless $CHUNKVIZ_SHARED says otherwise


def s(start: int, end: int, document: str = "d") -> DocumentSpan:
    return DocumentSpan(document, start, end)


# ----------------------------------------------------------------------------- hand-computed
def test_ndcg_and_average_precision_of_a_small_ranking() -> None:
    # ranks 1 and 3 relevant, 3 relevant items exist, k = 3
    ndcg, ap = ranking_scores([True, False, True], 3, 3)
    assert ndcg == pytest.approx((1 + 1 / 2) / (1 + 1 / math.log2(3) + 1 / 2))
    assert ap == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert ranking_scores([False, False], 0, 2) == (0.0, 0.0)


def test_relevance_is_mrrs_overlap_and_the_relevant_items_are_the_chunks_reaching_a_reference() -> None:
    chunks = [s(0, 10), s(10, 20), s(20, 30), s(30, 40)]
    # the reference [15, 25) is overlapped by chunks 1 and 2; [30, 31) would only touch chunk 2 at its edge
    got = question_scores([s(15, 25)], [s(30, 40), s(10, 20), s(0, 10)], chunks, k=3)
    assert got.reciprocal_rank == 0.5
    assert got.ndcg_at_k == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert got.average_precision == pytest.approx((1 / 2) / 2)
    assert got.recall_at == ((1, 0.0), (3, 1.0))


def test_document_level_scores_rank_documents_by_their_first_span() -> None:
    retrieved = [s(0, 5, "a"), s(9, 12, "a"), s(0, 5, "b"), s(0, 5, "c")]
    got = document_scores(["b", "z"], retrieved, k=4)
    # document ranking a, b, c: b relevant at rank 2; two documents named, one found
    assert got.reciprocal_rank == 0.5
    assert got.recall_at_k == 0.5
    assert got.ndcg_at_k == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert got.average_precision == pytest.approx(0.5 / 2)
    assert got.recall_at == ((1, 0.0), (3, 0.5), (4, 0.5))
    assert all(math.isnan(getattr(got, m)) for m in ("recall", "precision", "iou", "precision_omega"))
    # means leave out what does not apply
    assert math.isnan(summarize([got])["iou"][0]) and summarize([got])["recall_at_k"][0] == 0.5


# ----------------------------------------------------------------------------- question files
def test_a_question_file_may_name_only_the_answering_documents(tmp_path: Path) -> None:
    corpus = {"x/api_guide.md": "alpha", "x/inventory.py": "beta"}
    text = '{"question": "Where is the key?", "documents": ["api_guide.md", "inventory"]}\n'
    (q,) = load_questions(text.encode(), corpus, name="q.jsonl")
    assert q.references == () and q.documents == ("x/api_guide.md", "x/inventory.py")
    assert load_questions(questions_to_jsonl([q]).encode(), corpus, name="q.jsonl") == [q]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"question": "q", "documents": []}', "non-empty list of document names"),
        ('{"question": "q", "documents": ["api_guide.md"], "references": [{"excerpt": "alpha"}]}', 'no "references"'),
        ('{"question": "q", "documents": ["nope.md"]}', "not in the corpus"),
        ('{"question": "q", "documents": [3]}', "non-empty list of document names"),
        (
            '{"question": "q", "documents": ["api_guide.md"]}\n{"question": "r", "references": [{"excerpt": "alpha"}]}',
            "line 2",
        ),
    ],
)
def test_document_labels_that_cannot_be_read_are_one_clear_error(text: str, message: str) -> None:
    with pytest.raises(QuestionFileError, match=message):
        load_questions(text.encode(), {"api_guide.md": "alpha"}, name="q.jsonl")


# ----------------------------------------------------------------------------- against ir-measures
def _eval_json(args: list[str]) -> list[dict[str, Any]]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["eval", *args, "--json", "-"]) == 0
    return json.loads(out.getvalue())


def _check_against_ir_measures(
    result: dict[str, Any], qrels: dict[str, dict[str, int]], runs: dict[str, list[str]], k: int
) -> None:
    """Per question and in the mean: chunkviz's NDCG@k and AP equal trec_eval's (via ir-measures)
    on the same run (the retrieved ids in rank order) and qrels (the relevant ids)."""
    ir_measures = pytest.importorskip("ir_measures")
    run = {q: {doc: float(len(ids) - i) for i, doc in enumerate(ids)} for q, ids in runs.items()}
    ndcg, ap = ir_measures.nDCG @ k, ir_measures.AP
    theirs: dict[tuple[str, str], float] = {}
    for m in ir_measures.iter_calc([ndcg, ap], qrels, run):
        theirs[(m.query_id, "ndcg" if m.measure == ndcg else "ap")] = m.value
    assert theirs, "ir-measures scored nothing"
    for q, question in enumerate(result["questions"]):
        qid = str(q)
        mine = question["scores"]
        # trec_eval leaves out a question with no relevant item; chunkviz scores it 0
        assert mine["ndcg_at_k"] == pytest.approx(theirs.get((qid, "ndcg"), 0.0), abs=1e-9)
        assert mine["average_precision"] == pytest.approx(theirs.get((qid, "ap"), 0.0), abs=1e-9)
    n = len(result["questions"])
    assert result["summary"]["ndcg_at_k"]["mean"] == pytest.approx(
        sum(v for (_, m), v in theirs.items() if m == "ndcg") / n, abs=1e-9
    )
    assert result["summary"]["average_precision"]["mean"] == pytest.approx(
        sum(v for (_, m), v in theirs.items() if m == "ap") / n, abs=1e-9
    )


def _span_qrels_and_runs(
    result: dict[str, Any], questions: list[Any], corpus: dict[str, Any], strategy: str, params: dict[str, Any]
) -> tuple[dict[str, dict[str, int]], dict[str, list[str]]]:
    """The qrels (every chunk that overlaps a reference) and runs (the retrieved chunks), by chunk id."""
    spans = {
        (name, c.start, c.end)
        for name, doc in corpus.items()
        for c in searchable(chunk(doc, strategy, tokenizer=result["tokenizer"], **params))
    }
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, list[str]] = {}
    for q, question in enumerate(questions):
        relevant = {
            f"{d}:{a}:{b}"
            for d, a, b in spans
            if any(r.document == d and max(a, r.start) < min(b, r.end) for r in question.references)
        }
        qrels[str(q)] = {doc: 1 for doc in relevant}
        runs[str(q)] = [f"{h['document']}:{h['start']}:{h['end']}" for h in result["questions"][q]["retrieved"]]
    return qrels, runs


SAMPLE_SETS = sorted(p.stem for p in (SAMPLES / "questions").glob("*.jsonl"))


@pytest.mark.parametrize("stem", SAMPLE_SETS)
def test_ndcg_and_map_equal_trec_evals_on_the_samples_question_sets(stem: str) -> None:
    (document,) = [p for p in SAMPLES.iterdir() if p.is_file() and p.stem == stem]
    questions_file = SAMPLES / "questions" / f"{stem}.jsonl"
    (result,) = _eval_json(
        [str(document), "--questions", str(questions_file), "--retriever", "bm25", "-p", "chunk_size=64"]
    )
    doc = read_path(document)
    corpus = {doc.name: doc}
    questions = load_questions(questions_file, {doc.name: doc.text})
    qrels, runs = _span_qrels_and_runs(result, questions, corpus, "recursive", {"chunk_size": 64})
    _check_against_ir_measures(result, qrels, runs, 5)


def test_ndcg_and_map_equal_trec_evals_on_chromas_questions() -> None:
    if not (CHROMA / "questions_df.csv").is_file():
        pytest.skip(f"Chroma's evaluation data is not at {CHROMA}")
    documents = sorted(str(p) for p in (CHROMA / "corpora").glob("*.md"))
    args = [*documents, "--questions", str(CHROMA / "questions_df.csv"), "--retriever", "bm25", "-p", "chunk_size=400"]
    (result,) = _eval_json([*args, "--k", "5"])
    corpus = {d.name: d for d in map(read_path, documents)}
    questions = load_questions(CHROMA / "questions_df.csv", {n: d.text for n, d in corpus.items()})
    qrels, runs = _span_qrels_and_runs(result, questions, corpus, "recursive", {"chunk_size": 400})
    _check_against_ir_measures(result, qrels, runs, 5)


def test_document_level_ndcg_and_map_equal_trec_evals(tmp_path: Path) -> None:
    names = ["api_guide.md", "field_station_handbook.md", "contract_excerpt.txt"]
    documents = [SAMPLES / n for n in names]
    corpus = {d.name: d.text for d in map(read_path, documents)}
    span_questions = [q for n in names for q in load_questions(SAMPLES / "questions" / f"{Path(n).stem}.jsonl", corpus)]
    keys = list(corpus)
    # the same questions, labelled by the document each answers (every second one also names another)
    labelled = [
        {"question": q.question, "documents": [q.references[0].document, *([keys[i % 3]] if i % 2 else [])]}
        for i, q in enumerate(span_questions)
    ]
    path = tmp_path / "documents.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in labelled), encoding="utf-8")
    (result,) = _eval_json([*map(str, documents), "--questions", str(path), "--retriever", "bm25", "--k", "8"])
    assert all(result["summary"][m]["mean"] is None for m in ("recall", "precision", "iou", "precision_omega"))
    qrels = {str(i): dict.fromkeys(item["documents"], 1) for i, item in enumerate(labelled)}
    runs = {
        str(i): list(dict.fromkeys(h["document"] for h in question["retrieved"]))
        for i, question in enumerate(result["questions"])
    }
    _check_against_ir_measures(result, qrels, runs, 8)
    assert 0 < result["summary"]["ndcg_at_k"]["mean"] <= 1
