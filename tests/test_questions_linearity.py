"""Issue 23 item 6: locating excerpts costs about the corpus once plus the excerpts, not their
product. Work is counted, not timed (as in ``tests/test_linearity.py``): the characters the
excerpt index examines (its build, the candidate checks, any ``str.find`` scan) and the lines of
``chunkviz/evaluation/questions.py`` that run. ``Q`` questions on a document that grows with them are
parsed at three sizes; quadratic work would grow 16 times per step, linear 4 times.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

import pytest

from chunkviz.evaluation import questions
from chunkviz.evaluation.questions import parse_questions

SIZES = (60, 240, 960)
MAX_RATIO = 6.0
WORDS = "gauge station river dawn noon level rose fell logged reading north south crew boat rain".split()


def corpus_and_questions(count: int, shape: str) -> tuple[str, str]:
    """A document of about ``count * 150`` characters and ``count`` excerpt questions on it."""
    rng = random.Random(count)
    sentences = []
    for k in range(count * 2):
        words = " ".join(rng.choice(WORDS) for _ in range(10 + k % 7))
        if shape == "unicode":
            words = words.replace("a", "ä").replace("o", "ø") + " 日本"
        sentences.append(f"{words.capitalize()} {k}." + ("\n\n" if k % 5 == 4 else " "))
    text = "".join(sentences)
    lines = []
    for k in range(0, count * 2, 2):
        excerpt = sentences[k].strip()  # unique: it ends in its number
        lines.append(json.dumps({"question": f"q{k}", "references": [{"excerpt": excerpt}]}, ensure_ascii=False))
    return text, "\n".join(lines) + "\n"


class _Counting(questions._ExcerptIndex):
    made: list[questions._ExcerptIndex] = []

    def __init__(self, text: str) -> None:
        super().__init__(text)
        _Counting.made.append(self)


def work(count: int, shape: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """(characters examined, lines of questions.py run) to parse the file of ``count`` questions."""
    text, jsonl = corpus_and_questions(count, shape)
    _Counting.made = []
    monkeypatch.setattr(questions, "_ExcerptIndex", _Counting)
    lines = 0
    target = questions.__file__

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal lines
        if frame.f_code.co_filename != target:
            return None
        if event == "line":
            lines += 1
        return tracer

    sys.settrace(tracer)
    try:
        parsed = parse_questions(jsonl, {"doc.md": text}, format="jsonl")
    finally:
        sys.settrace(None)
    assert len(parsed) == count
    for q in parsed:
        ref = q.references[0]
        assert text[ref.start : ref.end] in jsonl
    return sum(index.work for index in _Counting.made), lines


@pytest.mark.parametrize("shape", ["prose", "unicode"])
def test_excerpt_lookup_work_grows_linearly(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = [work(n, shape, monkeypatch) for n in SIZES]
    for (chars_a, lines_a), (chars_b, lines_b) in zip(counts, counts[1:]):
        assert chars_b / chars_a <= MAX_RATIO, (shape, counts)
        assert lines_b / lines_a <= MAX_RATIO, (shape, counts)


def test_the_index_finds_what_find_finds() -> None:
    """Every occurrence, overlapping ones included, in order; repeated patterns fall back."""
    rng = random.Random(5)
    for text in ("ab" * 3_000, "".join(rng.choice("abc ") for _ in range(20_000)), "x" * 10_000):
        index = questions._ExcerptIndex(text)
        index.scans = index.SCANS_BEFORE_INDEXING  # index from the first lookup
        for _ in range(60):
            start = rng.randrange(len(text) - 80)
            excerpt = text[start : start + rng.randrange(47, 80)]
            expected, at = [], text.find(excerpt)
            while at >= 0 and len(expected) < 6:
                expected.append(at)
                at = text.find(excerpt, at + 1)
            assert index.occurrences(excerpt, 6) == expected
        assert index.occurrences("z" * 60, 6) == []
