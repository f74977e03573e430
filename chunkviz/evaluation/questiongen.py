"""Questions for your own documents: an evaluation set written by the model, checked against the text.

The way Chroma's "Evaluating Chunking Strategies for Retrieval" built its questions: the model
reads a window of the document (about 4,000 characters, as the study's ``document_length``) and
writes questions, each with the excerpts that answer it copied exactly from the text (whole
sentences where possible, at most five). Here the windows are the document's chunks by the
``recursive`` strategy counted in characters (exact spans, cut at paragraph, line and word
breaks), so every call and its cache key are deterministic; the questions asked for are spread
evenly over the windows (:func:`allocate`).

Every proposed question is checked against the whole document (:func:`check_proposal`), and
dropped and counted when:

- an excerpt is not found verbatim (``not_found``);
- an excerpt is found more than once, so its place is ambiguous (``ambiguous``);
- the question repeats an earlier kept one (same text after :func:`~chunkviz.llm.answers.normalize_answer`),
  or one of its excerpts is at the same place as an earlier kept excerpt (``duplicate``);
- it has more than :data:`MAX_REFERENCES` excerpts (``too_many_references``), or no question
  text or no excerpt (``unreadable``);
- it is beyond the number asked for (``extra``).

When fewer questions than asked survive, the windows are asked again (at most ``rounds`` rounds
in all, listing the questions already kept so the model does not repeat them), until a round
adds nothing. The set is saved in the JSONL question format ``chunkviz eval`` reads
(:func:`chunkviz.evaluation.questions.save_questions`: spans plus their excerpts).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chunkviz.evaluation.questions import (
    Question,
    Reference,
)
from chunkviz.llm.answers import normalize_answer
from chunkviz.llm.client import CallEstimate, LLMClient, Prompt
from chunkviz.llm.jsonanswer import read_json_answer
from chunkviz.llm.session import LLMSession, active_session

if TYPE_CHECKING:
    from chunkviz.document.model import Document

QUESTION_PROMPT = Prompt(
    name="question_generation",
    version=1,
    system=(
        "You write evaluation questions for a retrieval system from a given text. Each question can be answered "
        "solely by facts in the text, and comes with the excerpts of the text that answer it. You answer with JSON only."
    ),
    template=(
        "Text:\n<<<\n{text}\n>>>\n\n"
        "Write {count} question{plural} about this text. For each question, give as references every excerpt of the "
        "text that answers it: exact copies of the text (same words, spelling and punctuation), whole sentences where "
        "possible, at most 5 per question, each long enough to occur only once in the text. Make each question "
        "specific, about one topic, and answerable only with its references.{avoid}\n\n"
        "Answer with one JSON object and nothing else, in this form:\n"
        '{{"questions": [{{"question": "...", "references": ["exact excerpt", "another exact excerpt"]}}]}}'
    ),
    json=True,
)
#: At most this many excerpts per question (the study's limit).
MAX_REFERENCES = 5
#: Characters of the document the model reads per call (the study's ``document_length``).
WINDOW_CHARS = 4000
#: Fewer characters than this leave too little to ask about.
MIN_WINDOW_CHARS = 200
#: Kept questions listed in a later round's prompt, so the model does not repeat them.
MAX_AVOID = 20
#: Rounds of asking, the first included.
ROUNDS = 3
#: Why a proposed question was dropped, in the order they are checked and reported.
DROP_REASONS: dict[str, str] = {
    "unreadable": "no question text or no excerpt",
    "too_many_references": f"more than {MAX_REFERENCES} excerpts",
    "not_found": "an excerpt not found verbatim",
    "ambiguous": "an excerpt found more than once",
    "duplicate": "a duplicate of an earlier question or excerpt",
    "extra": "beyond the number asked for",
}
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


# ---- windows and the questions asked of each -----------------------------------------------------
@dataclass(frozen=True)
class Window:
    """Characters ``[start, end)`` of the document shown in one call."""

    index: int
    start: int
    end: int


def plan_windows(document: Document | str, window_chars: int = WINDOW_CHARS) -> list[Window]:
    """The document's ``recursive`` chunks of at most ``window_chars`` characters (no overlap);
    whitespace-only chunks are left out."""
    from chunkviz.api import chunk

    if isinstance(window_chars, bool) or not isinstance(window_chars, int) or window_chars < MIN_WINDOW_CHARS:
        raise ValueError(
            f"window_chars = {window_chars!r}: give the characters the model reads per call, {MIN_WINDOW_CHARS} or more"
        )
    chunks = chunk(document, "recursive", tokenizer="chars", chunk_size=window_chars, overlap=0)
    spans = [(c.start, c.end) for c in chunks if c.text.strip()]
    return [Window(i, start, end) for i, (start, end) in enumerate(spans)]


def allocate(total: int, windows: int, shift: int = 0) -> list[int]:
    """Questions asked of each window: ``total`` spread as evenly as possible (with fewer
    questions than windows, evenly spaced windows get one each); ``shift`` moves the choice by
    that many windows (a later round asks other windows)."""
    if windows <= 0:
        return []
    base, spread = divmod(max(total, 0), windows)
    counts = [base] * windows
    for i in range(spread):  # spread < windows: evenly spaced, distinct windows
        counts[(int((i + 0.5) * windows / spread) + shift) % windows] += 1
    return counts


def question_input(text: str, count: int, avoid: Sequence[str] = ()) -> dict[str, str]:
    """The inputs of :data:`QUESTION_PROMPT` for a window's ``text`` (lone surrogates as U+FFFD)."""
    listed = ""
    if avoid:
        shown = "\n".join(f"- {' '.join(q.split())}" for q in avoid[-MAX_AVOID:])
        listed = f"\n\nThese questions have been asked already; do not repeat them:\n{shown}"
    return {
        "text": _LONE_SURROGATE.sub("\ufffd", text),
        "count": str(count),
        "plural": "" if count == 1 else "s",
        "avoid": listed,
    }


# ---- reading an answer ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Proposal:
    """One question as the model proposed it (None fields: the item could not be read)."""

    question: str | None
    excerpts: tuple[str, ...]


@dataclass(frozen=True)
class ReadAnswer:
    """An answer's proposals and what had to be repaired to read them."""

    proposals: tuple[Proposal, ...]
    repairs: tuple[str, ...] = ()


_EXCERPT_KEYS = ("excerpt", "content", "text")


def read_questions(answer: str) -> ReadAnswer | None:
    """The questions in an answer (``{"questions": [{"question", "references"}]}``, read
    leniently, every repair named); None when it holds no such JSON at all. An empty list is a
    valid answer (nothing to ask in this window)."""
    parsed = read_json_answer(answer)
    if parsed is None:
        return None
    repairs = list(parsed.repairs)
    items = _items(parsed.value, repairs)
    if items is None:
        return None
    return ReadAnswer(tuple(_proposal(item, repairs) for item in items), tuple(dict.fromkeys(repairs)))


def _items(value: Any, repairs: list[str]) -> list[Any] | None:
    if isinstance(value, dict):
        if isinstance(value.get("questions"), list):
            return value["questions"]
        if "question" in value:
            repairs.append("read a single question object (no 'questions' list)")
            return [value]
        lists = [(k, v) for k, v in value.items() if isinstance(v, list)]
        if len(lists) != 1:
            return None
        repairs.append(f"read the list under {lists[0][0]!r} (not 'questions')")
        return lists[0][1]
    if isinstance(value, list):
        repairs.append("read a bare list (no 'questions' key)")
        return value
    return None


def _proposal(item: Any, repairs: list[str]) -> Proposal:
    if not isinstance(item, dict):
        return Proposal(None, ())
    question = item.get("question")
    refs = item.get("references")
    if refs is None:
        for key in ("excerpts", "reference", "excerpt"):
            if key in item:
                refs = item[key]
                repairs.append(f"read the excerpts under {key!r} (not 'references')")
                break
    if isinstance(refs, str):
        refs = [refs]
        repairs.append("read a single excerpt given as text (not a list)")
    excerpts: list[str] = []
    for ref in refs if isinstance(refs, list) else []:
        if isinstance(ref, dict):
            ref = next((ref[k] for k in _EXCERPT_KEYS if isinstance(ref.get(k), str)), None)
            if ref is not None:
                repairs.append("read excerpts given as objects")
        if isinstance(ref, str) and ref.strip():
            excerpts.append(ref.strip())
    text = _LONE_SURROGATE.sub("\ufffd", " ".join(question.split())) if isinstance(question, str) else ""
    return Proposal(text or None, tuple(excerpts))


# ---- checking a proposal against the document ----------------------------------------------------
def occurrences(text: str, excerpt: str, limit: int = 2) -> list[int]:
    """Where ``excerpt`` occurs in ``text`` (overlapping occurrences count), at most ``limit``."""
    found: list[int] = []
    at = text.find(excerpt)
    while at >= 0 and len(found) < limit:
        found.append(at)
        at = text.find(excerpt, at + 1)
    return found


@dataclass
class _Kept:
    """What earlier kept questions took: normalized question texts and excerpt spans."""

    questions: set[str] = field(default_factory=set)
    spans: set[tuple[int, int]] = field(default_factory=set)


def check_proposal(proposal: Proposal, text: str, document: str, kept: _Kept | None = None) -> Question | str:
    """The question with its references located in ``text`` (the document named ``document``),
    or why it is dropped (a key of :data:`DROP_REASONS`). ``kept`` holds what earlier kept
    questions took; a kept question is added to it."""
    kept = kept if kept is not None else _Kept()
    if proposal.question is None or not proposal.excerpts:
        return "unreadable"
    excerpts = list(dict.fromkeys(proposal.excerpts))  # the same excerpt twice is one reference
    if len(excerpts) > MAX_REFERENCES:
        return "too_many_references"
    spans = []
    for excerpt in excerpts:
        found = occurrences(text, excerpt)
        if not found:
            return "not_found"
        if len(found) > 1:
            return "ambiguous"
        spans.append((found[0], found[0] + len(excerpt)))
    normalized = normalize_answer(proposal.question) or proposal.question.casefold()
    if normalized in kept.questions or any(span in kept.spans for span in spans):
        return "duplicate"
    kept.questions.add(normalized)
    kept.spans.update(spans)
    return Question(proposal.question, tuple(Reference(document, start, end) for start, end in spans))


# ---- generating ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Generated:
    """The questions kept for one document (in document order) and what became of the others."""

    document: str
    requested: int
    questions: tuple[Question, ...]
    proposed: int
    dropped: dict[str, int]
    windows: int
    rounds: int
    repairs: tuple[str, ...] = ()

    def summary(self) -> str:
        """e.g. ``handbook.md: 8 of 10 questions (12 proposed in 5 windows, 2 rounds); dropped: 2 an excerpt not
        found verbatim, 1 a duplicate of an earlier question or excerpt, 1 beyond the number asked for``."""
        text = (
            f"{self.document}: {len(self.questions)} of {self.requested} question{'' if self.requested == 1 else 's'} "
            f"({self.proposed} proposed in {self.windows} window{'' if self.windows == 1 else 's'}, "
            f"{self.rounds} round{'' if self.rounds == 1 else 's'})"
        )
        dropped = [f"{self.dropped[k]} {DROP_REASONS[k]}" for k in DROP_REASONS if self.dropped.get(k)]
        text += "; dropped: " + ", ".join(dropped) if dropped else "; none dropped"
        if self.repairs:
            text += "; repaired: " + "; ".join(self.repairs)
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "document": self.document, "requested": self.requested, "kept": len(self.questions),
            "proposed": self.proposed, "dropped": {k: self.dropped.get(k, 0) for k in DROP_REASONS},
            "windows": self.windows, "rounds": self.rounds, "repairs": list(self.repairs),
        }  # fmt: skip


def _readable(answer: str) -> bool:
    return read_questions(answer) is not None


def _first_round(text: str, windows: Sequence[Window], n: int) -> list[dict[str, str]]:
    counts = allocate(n, len(windows))
    return [question_input(text[w.start : w.end], c) for w, c in zip(windows, counts) if c]


def estimate_questions(
    document: Document | str,
    n: int = 10,
    *,
    window_chars: int = WINDOW_CHARS,
    client: LLMClient | None = None,
) -> CallEstimate:
    """Calls and input tokens of the first round of :func:`generate_questions` (later rounds ask
    again only while questions are missing; raises LLMNotConfigured without an endpoint)."""
    from chunkviz.document.model import as_document

    client = client if client is not None else active_session().client()
    doc = as_document(document)
    return client.estimate(QUESTION_PROMPT, _first_round(doc.text, plan_windows(doc, window_chars), n))


def generate_questions(
    document: Document | str,
    n: int = 10,
    *,
    name: str | None = None,
    window_chars: int = WINDOW_CHARS,
    rounds: int = ROUNDS,
    session: LLMSession | None = None,
) -> Generated:
    """Up to ``n`` checked questions about ``document`` (see the module docstring); references
    name the document ``name`` (default: the Document's name, or ``"document"`` for a string).
    The session (default: the active one) is told each round's estimate and reports progress."""
    from chunkviz.document.model import as_document

    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n = {n!r}: give how many questions to write per document, a whole number of 1 or more")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds = {rounds!r}: a whole number of 1 or more")
    doc = as_document(document)
    label = name or doc.name or "document"
    session = session if session is not None else active_session()
    client = session.client()  # without an endpoint: LLMNotConfigured, before any work
    text = doc.text
    windows = plan_windows(doc, window_chars)
    kept_state = _Kept()
    kept: list[Question] = []
    dropped: Counter[str] = Counter()
    repairs: list[str] = []
    proposed = done_rounds = 0
    for round_number in range(1, rounds + 1):
        missing = n - len(kept)
        if missing <= 0 or not windows:
            break
        counts = allocate(missing, len(windows), shift=round_number - 1)
        asked = [(w, c) for w, c in zip(windows, counts) if c]
        avoid = [q.question for q in kept]
        inputs = [question_input(text[w.start : w.end], c, avoid) for w, c in asked]
        estimate = client.estimate(QUESTION_PROMPT, inputs)
        if estimate.calls:
            session.announce(
                f"questions for {label}" + (f" (round {round_number})" if round_number > 1 else ""), estimate
            )
        answers = client.complete_many(QUESTION_PROMPT, inputs, session.progress, accept=_readable)
        done_rounds = round_number
        before = len(kept)
        for (window, _), answer in zip(asked, answers):
            read = read_questions(answer)
            assert read is not None  # every accepted answer is readable
            repairs.extend(f"window {window.index + 1}: {r}" for r in read.repairs)
            for proposal in read.proposals:
                proposed += 1
                outcome = check_proposal(proposal, text, label, kept_state)
                if isinstance(outcome, str):
                    dropped[outcome] += 1
                elif len(kept) >= n:
                    dropped["extra"] += 1
                else:
                    kept.append(outcome)
        if len(kept) == before:
            break  # the model has nothing new to add
    ordered = sorted(kept, key=lambda q: (q.references[0].start, q.references[0].end))
    return Generated(
        label, n, tuple(ordered), proposed, dict(dropped), len(windows), done_rounds, tuple(dict.fromkeys(repairs))
    )


__all__ = [
    "DROP_REASONS",
    "MAX_REFERENCES",
    "MIN_WINDOW_CHARS",
    "QUESTION_PROMPT",
    "ROUNDS",
    "WINDOW_CHARS",
    "Generated",
    "Proposal",
    "ReadAnswer",
    "Window",
    "allocate",
    "check_proposal",
    "estimate_questions",
    "generate_questions",
    "occurrences",
    "plan_windows",
    "question_input",
    "read_questions",
]
