"""What a question set itself says about the scores it gives: overlaps, duplicates, lexical closeness.

Retrieval scores are only as good as the questions behind them. Three things change how a table
should be read, above all a comparison of dense and keyword (BM25, hybrid) retrieval:

- **overlapping references**: a question whose reference spans overlap one another counts some
  characters twice in its recall denominator (the spans are unioned by the metrics, but the set
  was probably not built with that in mind);
- **duplicates**: two questions with the same wording (case, spacing and punctuation aside), or
  with the same references, weigh one need twice in every mean;
- **lexical closeness**: the share of a question's terms (BM25's: lowercased, stop words removed,
  stemmed) that occur in its references. Questions written by reading the reference (most generated sets)
  reuse its words, which is what BM25 matches on, so keyword retrieval looks better on them than
  on questions real users phrase in their own words. The same share against a passage of the
  same length elsewhere in the same document is the baseline it should be compared with.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from chunkviz.evaluation.questions import Question, Reference
from chunkviz.evaluation.retrievers import tokenize

_WORD = re.compile(r"\w+")


def content_words(text: str) -> set[str]:
    """The distinct terms BM25 matches in ``text`` (:func:`chunkviz.evaluation.retrievers.tokenize`:
    lowercased, stop words dropped, stemmed)."""
    return set(tokenize(text))


@dataclass(frozen=True)
class QuestionSetReport:
    """Counts and shares over one question set (shares are fractions in [0, 1])."""

    questions: int
    #: questions with at least two references that share a character
    overlapping_references: int
    #: questions worded like an earlier one (case, spacing and punctuation ignored)
    duplicate_wording: int
    #: questions with the same reference spans as an earlier one
    duplicate_references: int
    #: per question: the share of its content words found in its references (None: no content word)
    closeness: tuple[float | None, ...]
    #: the same share against a passage of the references' length elsewhere in the same document (None: none fits)
    baseline: tuple[float | None, ...]

    @property
    def mean_closeness(self) -> float | None:
        return _mean(self.closeness)

    @property
    def mean_baseline(self) -> float | None:
        return _mean(self.baseline)

    @property
    def mostly_reused(self) -> int:
        """Questions at least half of whose content words occur in their references."""
        return sum(1 for c in self.closeness if c is not None and c >= 0.5)

    def lines(self) -> list[str]:
        """The report as a few lines of plain text (what ``chunkviz eval`` prints)."""
        n = self.questions
        out = [
            f"question set: {n} questions; {self.overlapping_references} with overlapping references; "
            f"{self.duplicate_wording} worded like another question; {self.duplicate_references} with the same "
            "references as another"
        ]
        close, base = self.mean_closeness, self.mean_baseline
        if close is not None:
            out.append(
                f"question words found in their references: {100 * close:.0f}% on average"
                + (f" (a passage of the same length elsewhere: {100 * base:.0f}%)" if base is not None else "")
                + f"; {self.mostly_reused} of {n} questions reuse at least half their words"
            )
            if base is not None and close - base >= 0.25:
                out.append(
                    "these questions reuse their references' words: keyword retrieval (bm25, hybrid) has an "
                    "advantage here that questions in users' own words would not give it"
                )
        return out


def question_set_report(questions: Sequence[Question], corpus: Mapping[str, str]) -> QuestionSetReport:
    """Overlaps, duplicates and lexical closeness of ``questions`` over ``corpus`` (name -> text)."""
    wordings: set[str] = set()
    reference_sets: set[tuple[Reference, ...]] = set()
    overlapping = same_wording = same_references = 0
    closeness: list[float | None] = []
    baseline: list[float | None] = []
    for q in questions:
        overlapping += _references_overlap(q.references)
        wording = " ".join(_WORD.findall(q.question.lower()))
        same_wording += wording in wordings
        wordings.add(wording)
        refs = tuple(sorted(q.references, key=lambda r: (r.document, r.start, r.end)))
        same_references += refs in reference_sets
        reference_sets.add(refs)
        words = content_words(q.question)
        closeness.append(_share(words, " ".join(r.text(corpus) for r in q.references)))
        baseline.append(_baseline_share(words, q.references, corpus))
    return QuestionSetReport(
        len(questions), overlapping, same_wording, same_references, tuple(closeness), tuple(baseline)
    )


def _references_overlap(references: Sequence[Reference]) -> bool:
    by_document: dict[str, list[Reference]] = {}
    for r in references:
        by_document.setdefault(r.document, []).append(r)
    for spans in by_document.values():
        spans.sort(key=lambda r: r.start)
        if any(b.start < a.end for a, b in zip(spans, spans[1:])):
            return True
    return False


def _share(words: set[str], text: str) -> float | None:
    if not words:
        return None
    return len(words & content_words(text)) / len(words)


def _elsewhere(reference: Reference, text: str) -> str | None:
    """A passage of the reference's length half a document away from it (moved back to fit before
    the end), so the baseline is deterministic; None when no such passage misses the reference."""
    length, size = reference.length, len(text)
    start = min((reference.start + size // 2) % size, size - length) if size else 0
    if start < 0 or (start < reference.end and reference.start < start + length):
        return None
    return text[start : start + length]


def _baseline_share(words: set[str], references: Sequence[Reference], corpus: Mapping[str, str]) -> float | None:
    passages = [_elsewhere(r, corpus[r.document]) for r in references]
    if any(p is None for p in passages):
        return None
    return _share(words, " ".join(p for p in passages if p is not None))


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known else None
