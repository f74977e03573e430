"""Answer quality (§13.8.1 step 3): does the model answer correctly from the chunks retrieved?

A post-pass over evaluation :class:`~chunkviz.evaluation.evaluate.Result` s (read through the
protocols :class:`RetrievalResult` and :class:`RetrievedSpan`, so ``llm/`` never imports
``evaluation/``, which imports the LLM techniques). For every
configuration and question, the model is given the top-k retrieved chunks (their text from the
documents, best first) and the question (:data:`ANSWER_PROMPT`), and its answer is scored
against the question's reference excerpts:

- **token F1** (SQuAD-style, :func:`token_f1`): both texts normalized by :func:`normalize_answer`
  (lowercase with ``str.lower``; every character of ``string.punctuation`` and every Unicode
  punctuation character (category P*) removed; the English articles ``a``, ``an``, ``the``
  removed as whole words; split on whitespace), then
  ``F1 = 2·P·R / (P + R)`` with ``P = common / answer tokens``, ``R = common / reference
  tokens`` and ``common`` the multiset intersection of the two token lists. The reference is
  all of the question's excerpts in their order, joined (a question's excerpts answer it
  together). Two empty token lists score 1, one empty list 0.
- **LLM judge** (optional, :data:`JUDGE_PROMPT`, its text shown by :func:`prompt_text`): the
  model compares the answer with the excerpts and returns strict JSON
  ``{"verdict": "correct" | "partially correct" | "incorrect", "reason": "..."}``, scored
  1, 0.5 and 0. An answer that is not quite that JSON is read leniently and every repair
  recorded (:func:`read_verdict`); one with no verdict at all is asked again and never cached,
  then the run stops with :class:`~chunkviz.llm.client.LLMError`.

Every call goes through the session's cached client: a second identical run makes no call.
Without an endpoint, :class:`~chunkviz.llm.client.LLMNotConfigured` says what to set.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from chunkviz.core.argtypes import whole_number
from chunkviz.llm.client import CallEstimate, LLMClient, Prompt, count_tokens
from chunkviz.llm.jsonanswer import read_json_answer
from chunkviz.llm.session import LLMSession, active_session

if TYPE_CHECKING:
    from chunkviz.document.model import Document


class SpanOfDocument(Protocol):
    """A character span ``[start, end)`` of corpus document ``document``."""

    @property
    def document(self) -> str: ...

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


class RetrievedSpan(Protocol):
    """What the answer pass reads of one retrieved span (the evaluation's ``Retrieved``)."""

    @property
    def rank(self) -> int: ...

    @property
    def span(self) -> SpanOfDocument: ...


class Labelled(Protocol):
    def label(self) -> str: ...


class RetrievalResult(Protocol):
    """What the answer pass reads of one configuration's retrieval (the evaluation's ``Result``)."""

    @property
    def configuration(self) -> Labelled: ...

    @property
    def retrieved(self) -> Sequence[Sequence[RetrievedSpan]]: ...

    def to_dict(self) -> dict[str, Any]: ...


ANSWER_PROMPT = Prompt(
    name="answer_question",
    version=1,
    system=(
        "You answer questions about documents for a retrieval evaluation. Use only the passages given; "
        "do not use outside knowledge."
    ),
    template=(
        "Passages retrieved for the question, best first:\n\n{passages}\n\n"
        "Question: {question}\n\n"
        "Answer in one to three sentences, using only these passages and their wording where you can. "
        'If the passages do not contain the answer, answer exactly: "The passages do not say."'
    ),
)

JUDGE_PROMPT = Prompt(
    name="answer_judge",
    version=1,
    system="You grade answers to questions against reference excerpts from a document. You answer with JSON only.",
    template=(
        "Question: {question}\n\n"
        "Reference excerpts from the document (they hold the correct answer):\n{references}\n\n"
        "Answer to grade:\n{answer}\n\n"
        'Is the answer correct according to the reference excerpts? "correct": it gives what the excerpts say '
        'answers the question; "partially correct": it gives part of it, or adds claims the excerpts contradict; '
        '"incorrect": it is wrong, misses the point, or says the passages do not tell.\n\n'
        "Answer with one JSON object and nothing else, in this form:\n"
        '{{"verdict": "correct", "reason": "one short sentence"}}'
    ),
    json=True,
)

#: A verdict's score.
VERDICTS: dict[str, float] = {"correct": 1.0, "partially correct": 0.5, "incorrect": 0.0}
#: Spellings of a verdict read as one of :data:`VERDICTS` (after lowercasing, ``_``/``-`` as spaces).
_VERDICT_SPELLINGS = {
    "correct": "correct", "right": "correct", "fully correct": "correct",
    "partially correct": "partially correct", "partly correct": "partially correct", "partial": "partially correct",
    "partially": "partially correct", "partially right": "partially correct",
    "incorrect": "incorrect", "wrong": "incorrect", "not correct": "incorrect",
}  # fmt: skip
_VERDICT_IN_TEXT = re.compile(r"\b(partially correct|partly correct|not correct|incorrect|correct)\b", re.IGNORECASE)
_VERDICT_KEYS = ("grade", "judgement", "judgment", "label", "result", "rating")
#: A judge's reason longer than this is shortened.
MAX_REASON_CHARS = 300
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)


# ---- token F1 ----------------------------------------------------------------------------------
def normalize_answer(text: str) -> str:
    """SQuAD normalization: lowercase, punctuation (ASCII ``string.punctuation`` and Unicode
    category P*) removed, articles a/an/the removed, whitespace collapsed to single spaces."""
    lowered = text.lower()
    kept = "".join(ch for ch in lowered if ch not in _PUNCTUATION and not unicodedata.category(ch).startswith("P"))
    return " ".join(_ARTICLES.sub(" ", kept).split())


def answer_tokens(text: str) -> list[str]:
    """The tokens F1 counts: the normalized text split on whitespace."""
    return normalize_answer(text).split()


def token_f1(prediction: str, reference: str) -> float:
    """SQuAD token F1 of ``prediction`` against ``reference`` (see the module docstring)."""
    predicted, gold = answer_tokens(prediction), answer_tokens(reference)
    if not predicted or not gold:
        return float(predicted == gold)
    common = sum((Counter(predicted) & Counter(gold)).values())
    if not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


# ---- what the model is shown -------------------------------------------------------------------
@dataclass(frozen=True)
class Passage:
    """A retrieved chunk given to the model: its rank, where it is and its text."""

    rank: int
    document: str
    start: int
    end: int
    text: str


def _text(document: Document | str) -> str:
    return document if isinstance(document, str) else document.text


def _shown(text: str) -> str:
    """Text as a request can carry it (lone surrogates as U+FFFD)."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def passages(
    hits: Sequence[RetrievedSpan], corpus: Mapping[str, Document | str], k: int | None = None
) -> list[Passage]:
    """The first ``k`` (all when None) retrieved spans in rank order, with their text."""
    chosen = sorted(hits, key=lambda h: h.rank)[: k if k is not None else None]
    return [
        Passage(
            h.rank, h.span.document, h.span.start, h.span.end, _text(corpus[h.span.document])[h.span.start : h.span.end]
        )
        for h in chosen
    ]


def reference_excerpts(question: Any, corpus: Mapping[str, Document | str]) -> list[str]:
    """The texts of a question's references, in the question's order."""
    return [_text(corpus[r.document])[r.start : r.end] for r in question.references]


def answer_input(question: str, shown: Sequence[Passage]) -> dict[str, str]:
    """The inputs of :data:`ANSWER_PROMPT`: passages as ``[rank] text`` blocks, best first."""
    blocks = "\n\n".join(f"[{p.rank}] {_shown(p.text).strip()}" for p in shown) or "(no passages were retrieved)"
    return {"passages": blocks, "question": _shown(question)}


def judge_input(question: str, excerpts: Sequence[str], answer: str) -> dict[str, str]:
    """The inputs of :data:`JUDGE_PROMPT`: each reference excerpt on its own ``- `` line."""
    references = "\n".join(f"- {' '.join(_shown(e).split())}" for e in excerpts)
    return {"question": _shown(question), "references": references, "answer": _shown(answer).strip()}


def prompt_text(prompt: Prompt) -> str:
    """A prompt as it may be shown to the user: its system message, then its template (inputs in
    braces)."""
    template = prompt.template.replace("{{", "{").replace("}}", "}")
    return f"[system]\n{prompt.system}\n\n[user]\n{template}"


# ---- the judge's answer ------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """The judge's verdict (one of :data:`VERDICTS`), its score, reason and what was repaired."""

    verdict: str
    score: float
    reason: str
    repairs: tuple[str, ...] = ()


def read_verdict(answer: str) -> Verdict | None:
    """The verdict in the judge's answer, repaired where needed (code fence, text around the JSON,
    single quotes, another key, another spelling, no JSON but one verdict in the text, a missing
    or over-long reason); None when it holds no verdict."""
    parsed = read_json_answer(answer)
    repairs: list[str] = list(parsed.repairs) if parsed else []
    value = parsed.value if parsed else None
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        value = value[0]
        repairs.append("read the object inside a one-item list")
    if isinstance(value, dict):
        raw = _verdict_field(value, repairs)
        reason = value.get("reason", value.get("explanation"))
        if reason is not None and "reason" not in value:
            repairs.append("read the reason under 'explanation'")
    else:
        found = {_VERDICT_SPELLINGS[m.lower()] for m in _VERDICT_IN_TEXT.findall(answer)}
        if len(found) != 1:
            return None
        raw, reason = found.pop(), None
        repairs = ["not valid JSON: read the verdict from the text"]
    verdict = _canonical_verdict(raw, repairs)
    if verdict is None:
        return None
    return Verdict(verdict, VERDICTS[verdict], _reason(reason, repairs), tuple(repairs))


def _verdict_field(value: Mapping[str, Any], repairs: list[str]) -> Any:
    if "verdict" in value:
        return value["verdict"]
    for key in _VERDICT_KEYS:
        if key in value:
            repairs.append(f"read the verdict under {key!r} (not 'verdict')")
            return value[key]
    if isinstance(value.get("correct"), bool):
        repairs.append("read the verdict from 'correct': true/false")
        return "correct" if value["correct"] else "incorrect"
    return None


def _canonical_verdict(raw: Any, repairs: list[str]) -> str | None:
    if not isinstance(raw, str):
        return None
    spelled = " ".join(raw.lower().replace("_", " ").replace("-", " ").split()).rstrip(".")
    verdict = _VERDICT_SPELLINGS.get(spelled)
    if verdict is not None and raw != verdict:
        repairs.append(f"read the verdict {raw!r} as {verdict!r}")
    return verdict


def _reason(reason: Any, repairs: list[str]) -> str:
    if not isinstance(reason, str) or not reason.strip():
        repairs.append("no reason given")
        return ""
    flat = " ".join(reason.split())
    if len(flat) > MAX_REASON_CHARS:
        repairs.append(f"shortened the reason to {MAX_REASON_CHARS} characters")
        flat = flat[: MAX_REASON_CHARS - 1].rstrip() + "…"
    return flat


def _readable_verdict(answer: str) -> bool:
    return read_verdict(answer) is not None


# ---- the run -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnsweredQuestion:
    """One question of one configuration: the passages the model saw, its answer and the scores."""

    number: int  # 1-based, in question order
    question: str
    passages: tuple[Passage, ...]
    answer: str
    f1: float
    verdict: Verdict | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "number": self.number, "question": self.question, "answer": self.answer, "f1": self.f1,
            "passages": [{"rank": p.rank, "document": p.document, "start": p.start, "end": p.end} for p in self.passages],
        }  # fmt: skip
        if self.verdict is not None:
            v = self.verdict
            out["judge"] = {"verdict": v.verdict, "score": v.score, "reason": v.reason, "repairs": list(v.repairs)}
        return out


#: The names of the answer-quality scores (means and standard deviations in :meth:`AnswerQuality.summary`).
ANSWER_METRICS: tuple[str, ...] = ("answer_f1", "judge")
#: Their column titles, next to report.TITLES.
ANSWER_TITLES = {"answer_f1": "answer F1", "judge": "judge"}


@dataclass(frozen=True)
class AnswerQuality:
    """The answer quality of one configuration (one evaluation Result)."""

    label: str
    k: int | None  # passages per question (None: all the Result retrieved)
    model: str
    answers: tuple[AnsweredQuestion, ...]
    judged: bool

    def summary(self) -> dict[str, tuple[float, float]]:
        """``{"answer_f1": (mean, std), "judge": (mean, std)}`` as fractions (population std, as
        :func:`chunkviz.evaluation.metrics.summarize`); NaN where there is nothing to average
        (no questions, or no judge)."""
        f1 = [a.f1 for a in self.answers]
        judge = [a.verdict.score for a in self.answers if a.verdict is not None] if self.judged else []
        return {"answer_f1": _mean_std(f1), "judge": _mean_std(judge)}

    def to_dict(self) -> dict[str, Any]:
        prompts = [ANSWER_PROMPT, *([JUDGE_PROMPT] if self.judged else [])]
        return {
            "label": self.label, "k": self.k, "model": self.model, "judged": self.judged,
            "prompts": {p.name: {"version": p.version, "text": prompt_text(p)} for p in prompts},
            "summary": {name: {"mean": mean, "std": std} for name, (mean, std) in self.summary().items()},
            "questions": [a.to_dict() for a in self.answers],
        }  # fmt: skip


def _mean_std(values: Sequence[float]) -> tuple[float, float]:
    if not values:
        return (math.nan, math.nan)
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


@dataclass(frozen=True)
class _Plan:
    shown: tuple[tuple[tuple[Passage, ...], ...], ...]  # per result, per question
    inputs: tuple[dict[str, str], ...]  # answer prompts, result-major


def _plan(
    results: Sequence[RetrievalResult], questions: Sequence[Any], corpus: Mapping[str, Document | str], k: int | None
) -> _Plan:
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ValueError(
            f"answer k = {k!r}: give how many retrieved chunks the model reads, a whole number of 1 or more"
        )
    shown: list[tuple[tuple[Passage, ...], ...]] = []
    inputs: list[dict[str, str]] = []
    for result in results:
        if len(result.retrieved) != len(questions):
            raise ValueError(
                f"the result {result.configuration.label()} has {len(result.retrieved)} questions, not {len(questions)}"
            )
        per_question = tuple(tuple(passages(hits, corpus, k)) for hits in result.retrieved)
        shown.append(per_question)
        inputs.extend(answer_input(q.question, p) for q, p in zip(questions, per_question))
    return _Plan(tuple(shown), tuple(inputs))


#: Tokens assumed for an answer not written yet, when estimating the judge's calls.
ESTIMATED_ANSWER_TOKENS = 60


def estimate_answers(
    results: Sequence[RetrievalResult],
    questions: Sequence[Any],
    corpus: Mapping[str, Document | str],
    *,
    k: int | None = None,
    judge: bool = False,
    client: LLMClient | None = None,
) -> CallEstimate:
    """Calls and input tokens of :func:`answer_quality` (raises LLMNotConfigured without an
    endpoint). The judge's calls count the answers already cached exactly, the others with an
    answer of about :data:`ESTIMATED_ANSWER_TOKENS` tokens."""
    client = client if client is not None else active_session().client()
    plan = _plan(results, questions, corpus, k)
    answers = client.estimate(ANSWER_PROMPT, plan.inputs)
    if not judge:
        return answers
    calls, cached, tokens = answers.calls, answers.cached, answers.input_tokens
    seen: set[str] = set()
    excerpts = [reference_excerpts(q, corpus) for q in questions]
    n = len(questions)
    for i, item in enumerate(plan.inputs):
        known = client.cache.get(client.key(ANSWER_PROMPT, item))
        judged = judge_input(questions[i % n].question, excerpts[i % n], known or "")
        key = client.key(JUDGE_PROMPT, judged) if known is not None else f"pending:{client.key(ANSWER_PROMPT, item)}"
        if key in seen:
            continue
        seen.add(key)
        if known is not None and client.cache.contains(key):
            cached += 1
            continue
        calls += 1
        tokens += count_tokens(JUDGE_PROMPT.messages(judged)) + (0 if known is not None else ESTIMATED_ANSWER_TOKENS)
    return CallEstimate(calls, cached, tokens)


def answer_quality(
    results: Sequence[RetrievalResult],
    questions: Sequence[Any],
    corpus: Mapping[str, Document | str],
    *,
    k: int | None = None,
    judge: bool = False,
    session: LLMSession | None = None,
) -> list[AnswerQuality]:
    """The answer quality of every Result (see the module docstring): ``corpus`` maps document
    names to documents (or texts) as given to ``evaluate``; ``k`` passages per question (default:
    all a Result retrieved); ``judge`` adds the LLM judge. The session (default: the active one)
    is told the estimate before the calls and reports progress during them."""
    session = session if session is not None else active_session()
    client = session.client()  # without an endpoint: LLMNotConfigured, before any work
    plan = _plan(results, questions, corpus, k)
    estimate = estimate_answers(results, questions, corpus, k=k, judge=judge, client=client)
    if estimate.calls:
        what = f"answer quality of {len(results)} configuration{'' if len(results) == 1 else 's'} × {len(questions)} question{'' if len(questions) == 1 else 's'}"
        session.announce(what + (" with the judge" if judge else ""), estimate)
    written = client.complete_many(ANSWER_PROMPT, list(plan.inputs), session.progress)
    n = len(questions)
    excerpts = [reference_excerpts(q, corpus) for q in questions]
    verdicts: list[Verdict | None] = [None] * len(written)
    if judge:
        judged = [judge_input(questions[i % n].question, excerpts[i % n], a) for i, a in enumerate(written)]
        read = [
            read_verdict(a)
            for a in client.complete_many(JUDGE_PROMPT, judged, session.progress, accept=_readable_verdict)
        ]
        verdicts = list(read)  # every accepted answer holds a verdict
    out = []
    for r, (result, shown) in enumerate(zip(results, plan.shown)):
        rows = []
        for q, question in enumerate(questions):
            answer = written[r * n + q]
            reference = "\n".join(excerpts[q])
            rows.append(
                AnsweredQuestion(
                    q + 1, question.question, shown[q], answer, token_f1(answer, reference), verdicts[r * n + q]
                )
            )
        out.append(AnswerQuality(result.configuration.label(), k, str(client.settings.model), tuple(rows), judge))
    return out


# ---- showing it ----------------------------------------------------------------------------------
def answer_cells(quality: AnswerQuality) -> dict[str, str]:
    """``{"answer F1": "62.0 ± 10.0", "judge": "75.0 ± 25.0"}`` in percent ("–" without a number)."""
    cells = {}
    for name, (mean, std) in quality.summary().items():
        cells[ANSWER_TITLES[name]] = "–" if mean != mean else f"{100 * mean:.1f} ± {100 * std:.1f}"
    return cells


def with_answer_columns(table: str, qualities: Sequence[AnswerQuality]) -> str:
    """``report.table(results)``'s text with the answer F1 and judge columns added on the right
    (one quality per result row, in the same order)."""
    lines = table.split("\n")
    if len(lines) != len(qualities) + 2:
        raise ValueError(f"the table has {len(lines) - 2} rows for {len(qualities)} answer-quality results")
    titles = [ANSWER_TITLES[name] for name in ANSWER_METRICS]
    cells = [[answer_cells(q)[t] for t in titles] for q in qualities]
    widths = [max(len(t), *(len(row[i]) for row in cells)) for i, t in enumerate(titles)]
    added = [titles, ["-" * w for w in widths], *cells]
    return "\n".join(
        line + "".join("  " + cell.rjust(w) for cell, w in zip(extra, widths)) for line, extra in zip(lines, added)
    )


def answer_rows(quality: AnswerQuality) -> list[dict[str, Any]]:
    """One row per question: number, question, answer, F1 in percent (0.1), verdict and reason."""
    rows = []
    for a in quality.answers:
        row: dict[str, Any] = {
            "#": a.number,
            "question": a.question,
            "answer": a.answer,
            "answer F1": round(100 * a.f1, 1),
        }
        if quality.judged and a.verdict is not None:
            row.update({"judge": a.verdict.verdict, "reason": a.verdict.reason})
        rows.append(row)
    return rows


def results_with_answers(
    results: Sequence[RetrievalResult], qualities: Sequence[AnswerQuality]
) -> list[dict[str, Any]]:
    """Each Result's ``to_dict()`` with its answer quality under ``"answers"``."""
    if len(results) != len(qualities):
        raise ValueError(f"{len(qualities)} answer-quality results for {len(results)} results")
    return [{**r.to_dict(), "answers": q.to_dict()} for r, q in zip(results, qualities)]


def results_with_answers_json(results: Sequence[RetrievalResult], qualities: Sequence[AnswerQuality]) -> str:
    return json.dumps(results_with_answers(results, qualities), indent=2, ensure_ascii=False)


# ---- the eval command's options ------------------------------------------------------------------
def add_answer_arguments(parser: argparse.ArgumentParser) -> None:
    """``--answers``, ``--judge`` and ``--answer-k`` for ``chunkviz eval`` (they need an LLM endpoint)."""
    group = parser.add_argument_group(
        "answer quality",
        "the model answers each question from the retrieved chunks (needs an LLM endpoint; one call "
        "per configuration and question, cached)",
    )
    group.add_argument(
        "--answers", action="store_true", help="score the model's answers by token F1 against the reference excerpts"
    )
    group.add_argument(
        "--judge",
        action="store_true",
        help="also let the model judge each answer correct / partially correct / incorrect (one more call each; implies --answers)",
    )
    group.add_argument(
        "--answer-k",
        type=whole_number(1),
        metavar="N",
        help="chunks the model reads per question (default: all retrieved, --k)",
    )


def answers_requested(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "answers", False) or getattr(args, "judge", False))


def check_answer_endpoint(args: argparse.Namespace, session: LLMSession | None = None) -> None:
    """Before the evaluation: when answers are asked for, make sure there is an endpoint (raises
    LLMNotConfigured at once, instead of after the embedding work)."""
    if answers_requested(args):
        (session if session is not None else active_session()).client()


def run_answers(
    args: argparse.Namespace,
    corpus: Mapping[str, Document | str],
    questions: Sequence[Any],
    results: Sequence[RetrievalResult],
    session: LLMSession | None = None,
) -> list[AnswerQuality] | None:
    """The answer quality ``chunkviz eval`` asked for (None without --answers / --judge)."""
    if not answers_requested(args):
        return None
    return answer_quality(
        results,
        questions,
        corpus,
        k=getattr(args, "answer_k", None),
        judge=bool(getattr(args, "judge", False)),
        session=session,
    )


__all__ = [
    "ANSWER_METRICS",
    "ANSWER_PROMPT",
    "ANSWER_TITLES",
    "JUDGE_PROMPT",
    "VERDICTS",
    "AnswerQuality",
    "AnsweredQuestion",
    "Passage",
    "Verdict",
    "add_answer_arguments",
    "answer_cells",
    "answer_input",
    "answer_quality",
    "answer_rows",
    "answer_tokens",
    "answers_requested",
    "check_answer_endpoint",
    "estimate_answers",
    "judge_input",
    "normalize_answer",
    "passages",
    "prompt_text",
    "read_verdict",
    "reference_excerpts",
    "results_with_answers",
    "results_with_answers_json",
    "run_answers",
    "token_f1",
    "with_answer_columns",
]
