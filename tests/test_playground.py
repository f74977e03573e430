"""chunkviz.evaluation.playground: a typed query's hits and live scores per column, with a
bag-of-words stand-in encoder (exact, no model), and once with the offline MiniLM (slow)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest

from chunkviz.cli import commands as cli
from chunkviz.core.types import Chunk, Reason
from chunkviz.diagnostics.compare import run_strategy
from chunkviz.evaluation.metrics import Scores
from chunkviz.evaluation.playground import (
    AnswerNotFound,
    Hit,
    answer_scores,
    column_hits,
    embed_query,
    locate_answer,
    make_question,
    questions_file,
    score_row,
    search,
    trim_span,
)
from chunkviz.evaluation.questions import Question, Reference, load_questions
from chunkviz.semantic import embedcache

REPO = Path(__file__).resolve().parent.parent
VOCABULARY = ["coffee", "roast", "beans", "tide", "turbine", "barrage", "binding", "quire", "leather"]
PARAGRAPHS = (
    "Coffee roast notes. The beans crack when the roast is done.",
    "Tide power uses a turbine. A barrage holds the tide back.",
    "Book binding starts with a quire. The binding is covered in leather.",
)
TEXT = "\n\n".join(PARAGRAPHS) + "\n"
MODEL = "tests/bag-of-words"
calls: list[list[str]] = []


def words(text: str) -> np.ndarray:
    """A bag-of-words vector over VOCABULARY (plus a constant so no vector is zero)."""
    found = re.findall(r"[a-z]+", text.lower())
    return np.asarray([found.count(w) for w in VOCABULARY] + [0.01], dtype=np.float32)


def encode_words(texts: Sequence[str], progress=None) -> np.ndarray:  # noqa: ANN001
    """The stand-in encoder (records what it is asked to embed)."""
    calls.append(list(texts))
    return np.stack([words(t) for t in texts])


def cosine(a: str, b: str) -> float:
    x, y = words(a), words(b)
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    embedcache.clear_memory()
    calls.clear()


def span(excerpt: str) -> tuple[int, int]:
    start = TEXT.index(excerpt)
    return start, start + len(excerpt)


def chunk(index: int, start: int, end: int, parent: int | None = None, level: int = 0) -> Chunk:
    return Chunk(index, start, end, TEXT[start:end], Reason.UNIT_END, parent=parent, level=level)


#: one chunk per paragraph
FLAT = [chunk(i, *span(p)) for i, p in enumerate(PARAGRAPHS)]
#: parent 0 = paragraphs 1-2, parent 1 = paragraph 3; children 2, 3, 4 = the paragraphs
PARENTS = [
    chunk(0, 0, span(PARAGRAPHS[1])[1]),
    chunk(1, *span(PARAGRAPHS[2])),
    chunk(2, *span(PARAGRAPHS[0]), parent=0, level=1),
    chunk(3, *span(PARAGRAPHS[1]), parent=0, level=1),
    chunk(4, *span(PARAGRAPHS[2]), parent=1, level=1),
]
QUERY = "tide turbine"
ANSWER = span("A barrage holds the tide back.")


def query_vector(query: str = QUERY) -> np.ndarray:
    return embed_query(query, MODEL, encode_words)


def test_flat_hits_are_the_best_chunks_with_their_cosine() -> None:
    hits = search(FLAT, False, query_vector(), 3, MODEL, encode_words)
    assert [(h.index, h.rank, h.matched) for h in hits] == [
        (1, 1, None),
        (0, 2, None),
        (2, 3, None),
    ]  # a tie: earlier first
    assert hits[0].score == pytest.approx(cosine(QUERY, PARAGRAPHS[1]), abs=1e-6)
    assert hits[1].score == pytest.approx(cosine(QUERY, PARAGRAPHS[0]), abs=1e-6) and hits[1].score < 0.01
    assert [h.index for h in search(FLAT, False, query_vector(), 1, MODEL, encode_words)] == [1]


def test_children_are_searched_and_their_parents_returned_once() -> None:
    hits = search(PARENTS, True, query_vector(), 3, MODEL, encode_words)
    # children ranked 3, 2, 4: child 2's parent is parent 0 again (skipped), child 4 returns parent 1
    assert [(h.index, h.rank, h.matched) for h in hits] == [(0, 1, 3), (1, 2, 4)]
    assert hits[0].score == pytest.approx(cosine(QUERY, PARAGRAPHS[1]), abs=1e-6)
    assert [c for batch in calls for c in batch if c != QUERY] == list(PARAGRAPHS)  # only the children are embedded


def test_column_hits_maps_a_ranking_over_searchable_chunks() -> None:
    assert column_hits(PARENTS, True, [2, 1, 0], [0.9, 0.5, 0.4]) == [Hit(1, 1, 0.9, 4), Hit(0, 2, 0.5, 3)]
    assert column_hits(PARENTS, False, [2, 1], [0.9, 0.5]) == [Hit(4, 1, 0.9), Hit(3, 2, 0.5)]
    assert column_hits(FLAT, False, [], []) == []


def test_chunks_and_the_query_are_embedded_once() -> None:
    search(FLAT, False, query_vector(), 2, MODEL, encode_words)
    search(FLAT, False, query_vector(), 3, MODEL, encode_words)  # another k: nothing new to embed
    assert calls == [[QUERY], list(PARAGRAPHS)]
    embedcache.clear_memory()  # a new process: the disk cache answers
    search(FLAT, False, query_vector(), 3, MODEL, encode_words)
    assert calls == [[QUERY], list(PARAGRAPHS)]


def test_scores_against_the_expected_answer() -> None:
    length = ANSWER[1] - ANSWER[0]
    one = answer_scores(FLAT, False, search(FLAT, False, query_vector(), 1, MODEL, encode_words), ANSWER)
    chunk_chars = len(PARAGRAPHS[1])
    assert one == Scores(recall=1.0, precision=length / chunk_chars, iou=length / chunk_chars,
                         precision_omega=length / chunk_chars, recall_at_k=1.0, reciprocal_rank=1.0,
                         ndcg_at_k=1.0, average_precision=1.0, recall_at=((1, 1.0),))  # fmt: skip
    three = answer_scores(FLAT, False, search(FLAT, False, query_vector(), 3, MODEL, encode_words), ANSWER)
    total = sum(len(p) for p in PARAGRAPHS)
    assert (three.recall, three.precision, three.iou, three.reciprocal_rank) == (
        1.0,
        length / total,
        length / total,
        1.0,
    )
    # the returned parent counts whole
    parent = answer_scores(PARENTS, True, search(PARENTS, True, query_vector(), 1, MODEL, encode_words), ANSWER)
    assert parent.recall == 1.0 and parent.precision == pytest.approx(length / (PARENTS[0].end - PARENTS[0].start))
    # an answer the hits miss
    missed = answer_scores(
        FLAT, False, search(FLAT, False, query_vector(), 1, MODEL, encode_words), span("covered in leather")
    )
    assert (missed.recall, missed.iou, missed.recall_at_k, missed.reciprocal_rank) == (0.0, 0.0, 0.0, 0.0)
    # rank 2 holds it: RR 1/2, half the answer in the hits
    half = answer_scores(
        FLAT, False, [Hit(1, 1, 0.9), Hit(2, 2, 0.1)], (span(PARAGRAPHS[2])[0] - 1, span(PARAGRAPHS[2])[0] + 1)
    )
    assert (half.recall, half.reciprocal_rank) == (0.5, 0.5)


def test_score_row() -> None:
    hits = [Hit(4, 2, 0.3), Hit(1, 1, 0.625, 3)]
    assert score_row("1. recursive", hits, None) == {
        "column": "1. recursive",
        "top k: rank, chunk, score": "#1 chunk 1 via 3: 0.62, #2 chunk 4: 0.30",
    }
    row = score_row("x", hits, Scores(1.0, 0.12345, 0.1, 0.5, 1.0, 0.5))
    assert [row[k] for k in ("recall %", "IoU %", "precision %", "recall@k %", "RR")] == [100.0, 10.0, 12.3, 100.0, 0.5]


def test_trim_span() -> None:
    text = "  alpha beta \n\n gamma"
    assert trim_span(text, 0, 13) == (2, 12)
    assert trim_span(text, 12, 16) == (12, 16)  # only whitespace: unchanged
    assert trim_span(text, -3, 99) == (2, len(text))


def test_locate_answer_exactly_once_or_a_clear_message() -> None:
    assert locate_answer(TEXT, "  A barrage holds the tide back.\n") == ANSWER
    with pytest.raises(AnswerNotFound, match="not in the document"):
        locate_answer(TEXT, "A barrage holds the sea back.")
    with pytest.raises(AnswerNotFound, match=r"more than once in the document \(at characters \d+ and \d+\)"):
        locate_answer(TEXT, "roast")
    with pytest.raises(AnswerNotFound, match="empty"):
        locate_answer(TEXT, "  \n")


def test_saved_questions_load_back(tmp_path: Path) -> None:
    questions = [
        make_question("  what holds the tide?  ", ANSWER, "notes.md"),
        make_question("binding?", span("quire"), "notes.md"),
    ]
    assert questions[0] == Question("what holds the tide?", (Reference("notes.md", *ANSWER),))
    text = questions_file(questions, {"notes.md": TEXT})
    first = json.loads(text.splitlines()[0])
    assert first["references"][0]["excerpt"] == "A barrage holds the tide back."
    path = tmp_path / "saved.jsonl"
    path.write_text(text, encoding="utf-8")
    # as chunkviz eval reads it: the corpus keyed by the path given on the command line
    assert load_questions(path, {"some/folder/notes.md": TEXT}) == [
        Question(q.question, tuple(Reference("some/folder/notes.md", r.start, r.end) for r in q.references))
        for q in questions
    ]
    # a question about another document: no excerpts, still spans
    other = questions_file([*questions, make_question("q", (0, 3), "other.md")], {"notes.md": TEXT})
    assert "excerpt" not in other
    with pytest.raises(ValueError, match="query is empty"):
        make_question(" ", ANSWER, "notes.md")


@pytest.mark.slow
def test_the_offline_minilm_playground_and_chunkviz_eval_on_saved_questions(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    from chunkviz.semantic.embeddings import DEFAULT_MODEL, default_encoder

    path = REPO / "chunkviz/sample_docs" / "field_station_handbook.md"
    text = path.read_text(encoding="utf-8")
    chunks = run_strategy(text, "recursive", {"chunk_size": 150, "overlap": 0}, "cl100k_base").chunks
    encode = default_encoder(DEFAULT_MODEL)
    query = "How do the readings get from a station to the server?"
    excerpt = "a cellular modem that sends the readings to our server every ten minutes."
    answer = locate_answer(text, excerpt)
    hits = search(chunks, False, embed_query(query, DEFAULT_MODEL, encode), 5, DEFAULT_MODEL, encode)
    scores = answer_scores(chunks, False, hits, answer)
    assert scores.recall == 1.0 and scores.reciprocal_rank >= 0.5, hits  # in the top two
    saved = tmp_path / "saved.jsonl"
    saved.write_text(questions_file([make_question(query, answer, path.name)], {path.name: text}), encoding="utf-8")
    assert (
        cli.main(
            [
                "eval",
                str(path),
                "--questions",
                str(saved),
                "-s",
                "recursive",
                "-p",
                "chunk_size=150",
                "-p",
                "overlap=0",
                "--json",
                "-",
            ]
        )
        == 0
    )
    (result,) = json.loads(capsys.readouterr().out)
    (question,) = result["questions"]
    for name in (
        "recall",
        "precision",
        "iou",
        "recall_at_k",
        "reciprocal_rank",
    ):  # the CLI scores it as the playground did
        assert math.isclose(question["scores"][name], getattr(scores, name)), name
    assert [r["start"] for r in question["retrieved"]] == [chunks[h.index].start for h in hits]
