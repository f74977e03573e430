"""The ``llm`` strategy: a language model says where sections begin (seed 000 §13.6.3, done better).

The seed asks the model for *character* offsets of the whole document in one call and trusts
the answer. Here the model sees the document model's sentences, numbered, and answers with the
numbers of the sentences that begin a new section (strict JSON, read leniently and repaired:
:mod:`chunkviz.llm.sections`), so every cut falls between sentences and every chunk is an exact
span. A document longer than ``context_tokens`` is shown in overlapping windows of sentences
whose proposals are merged. A section over ``max_tokens`` is packed by sentences (a sentence
over the limit split at words by the recursive engine); its pieces are marked ``split_unit``.

Reasons: a cut the model proposed is ``llm_boundary``; cuts inside an over-long section are
``size_limit``. Chunk metadata: ``llm_section`` (the section's number), ``llm_window`` (the
window that decided the section's start), ``llm_repairs`` (what was repaired in that window's
answer) and ``llm_section_split``. The endpoint comes from the active
:func:`chunkviz.llm.use_llm` session, else the environment; with none, ``LLMNotConfigured``.
Every call is cached (prompt version, model, sentences): a second run makes no call.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from chunkviz.core.errors import InvalidParamError
from chunkviz.core.explain import Explanation, ExplanationFigure
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Reason
from chunkviz.document.model import Document, as_document, is_blank
from chunkviz.llm.client import CallEstimate, LLMClient, count_tokens
from chunkviz.llm.reserves import SECTION_STARTS_RESERVE
from chunkviz.llm.sections import (
    SECTION_PROMPT,
    Proposal,
    Window,
    merged_starts,
    plan_windows,
    read_section_starts,
    sentence_line,
)
from chunkviz.llm.session import active_session
from chunkviz.splitting import PackPolicy, Piece, pack_units, to_chunks, unit_cuts
from chunkviz.strategies.base import param, register
from chunkviz.text.spancount import shared_counter
from chunkviz.text.tokenizers import Tokenizer, get_tokenizer

#: Why a chunk ends where the model said the next section begins. ``llm_boundary`` once the
#: vocabulary has it; until then the nearest existing reason (and ``cut_by: llm`` in metadata).
MODEL_CUT: Reason = (
    Reason("llm_boundary") if "llm_boundary" in Reason._value2member_map_ else Reason.SEMANTIC_BREAKPOINT
)


@dataclass(frozen=True)
class LLMParams:
    max_tokens: int = param(
        512,
        "largest chunk: a longer section is split at sentences (flagged split_unit)",
        minimum=1,
        maximum=100_000,
        unit="tokens",
    )
    context_tokens: int = param(
        4096,
        "the model's context in tokens: a longer document is sent in overlapping windows (one call each)",
        minimum=1024,
        maximum=2_000_000,
    )
    overlap_sentences: int = param(
        8, "sentences shared by consecutive windows (at most half a window)", minimum=0, maximum=200
    )

    def __post_init__(self) -> None:
        if _sentence_budget(self.context_tokens) < 64:
            raise InvalidParamError(
                "llm", "context_tokens", f"leaves too little room for sentences, got {self.context_tokens}"
            )


def _sentence_budget(context_tokens: int) -> int:
    """Tokens of numbered sentences one window may hold: the context less the prompt and the answer."""
    return context_tokens - _prompt_overhead() - SECTION_STARTS_RESERVE


@functools.lru_cache(maxsize=1)
def _prompt_overhead() -> int:
    """cl100k tokens of the prompt around the sentences."""
    return count_tokens(SECTION_PROMPT.messages({"what": "part 99 of 99 of a document", "sentences": ""}))


@dataclass(frozen=True)
class _Plan:
    """The sentences (cuts that tile the text), the windows, and the prompt inputs of each."""

    cuts: tuple[int, ...]
    windows: tuple[Window, ...]
    inputs: tuple[dict[str, str], ...]


def _plan(document: Document, params: LLMParams, tokenizer: Tokenizer) -> _Plan:
    text = document.text
    if is_blank(text):
        return _Plan((0,), (), ())
    counter = shared_counter(text, tokenizer)
    cuts = tuple(unit_cuts(text, document.structure.sentence_starts or [0], counter))
    n = len(cuts) - 1
    if n < 2:  # one sentence: nothing to ask
        return _Plan(cuts, (), ())
    cl100k = get_tokenizer("cl100k_base")
    lines = [sentence_line(text[cuts[k] : cuts[k + 1]], k + 1) for k in range(n)]
    line_tokens = [cl100k.count(line) + 1 for line in lines]
    windows = plan_windows(line_tokens, _sentence_budget(params.context_tokens), params.overlap_sentences)
    inputs = []
    for w in windows:
        shown = [sentence_line(text[cuts[k] : cuts[k + 1]], k - w.first + 1) for k in range(w.first, w.end)]
        what = "a document" if len(windows) == 1 else f"part {w.index + 1} of {len(windows)} of a document"
        inputs.append({"what": what, "sentences": "\n".join(shown)})
    return _Plan(cuts, tuple(windows), tuple(inputs))


def _readable(answer: str) -> bool:
    """Whether an answer holds sentence numbers at all (the window's size only decides repairs)."""
    return read_section_starts(answer, 1) is not None


def _ask(client: LLMClient, plan: _Plan, progress: Callable[[int, int], None] | None) -> list[Proposal]:
    """One answer per window (cached, concurrent), each read with its repairs."""
    answers = client.complete_many(SECTION_PROMPT, list(plan.inputs), progress, accept=_readable)
    proposals = [read_section_starts(answer, w.size) for answer, w in zip(answers, plan.windows)]
    return [p for p in proposals if p is not None]  # every accepted answer is readable


def estimate_llm(
    document: Document | str, params: LLMParams, tokenizer: Tokenizer, client: LLMClient | None = None
) -> CallEstimate:
    """Calls (one per window not cached yet) and input tokens of chunking ``document`` (raises
    LLMNotConfigured without an endpoint)."""
    plan = _plan(as_document(document), params, tokenizer)
    client = client if client is not None else active_session().client()
    return client.estimate(SECTION_PROMPT, plan.inputs)


@dataclass(frozen=True)
class LLMExplanation(Explanation):
    """What the model was asked and what it answered, per window, and what became of it."""

    model: str
    sentences: int
    context_tokens: int
    windows: tuple[Window, ...]
    proposals: tuple[Proposal, ...]
    starts: tuple[int, ...]  # sentence indices where a section begins (after merging)
    split_sections: int
    chunks: tuple[Chunk, ...] = field(default=())

    def summary(self) -> str:
        """e.g. ``model llama3.1 · 120 sentences in 2 windows (2 calls) · 7 section starts · 1
        section over max_tokens split · repaired: window 2: sorted the numbers``."""
        n = len(self.windows)
        parts = [f"model {self.model}", f"{self.sentences:,} sentences"]
        if n == 0:
            return " · ".join([*parts, "one sentence or none: no call needed"])
        parts.append(
            f"{n} window{'' if n == 1 else 's'} of at most {self.context_tokens:,} tokens ({n} call{'' if n == 1 else 's'})"
        )
        proposed = sum(len(p.starts) for p in self.proposals)
        parts.append(
            f"{len(self.starts):,} section start{'' if len(self.starts) == 1 else 's'} ({proposed:,} proposed)"
        )
        if self.split_sections:
            parts.append(
                f"{self.split_sections} section{'' if self.split_sections == 1 else 's'} over max_tokens split"
            )
        repairs = self.repairs()
        parts.append("repaired: " + "; ".join(repairs) if repairs else "answers used as given")
        return " · ".join(parts)

    def repairs(self) -> list[str]:
        """``window k: what was repaired`` for every window whose answer needed a repair."""
        label = (lambda i: "answer") if len(self.windows) == 1 else (lambda i: f"window {i + 1}")
        return [f"{label(i)}: {', '.join(p.repairs)}" for i, p in enumerate(self.proposals) if p.repairs]

    def figures(self, chunks: Sequence[Chunk]) -> list[ExplanationFigure]:
        return []

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "sentences": self.sentences,
            "context_tokens": self.context_tokens,
            "calls": len(self.windows),
            "windows": [
                {
                    "sentences": [w.first, w.end],
                    "decides": [w.core_start, w.core_end],
                    "proposed": [w.first + k - 1 for k in p.starts],
                    "repairs": list(p.repairs),
                }
                for w, p in zip(self.windows, self.proposals)
            ],
            "section_starts": list(self.starts),
            "split_sections": self.split_sections,
        }


def explain_llm(document: Document | str, params: LLMParams, tokenizer: Tokenizer) -> LLMExplanation:
    """Ask the model (or the cache) and cut: the chunks with what the model said."""
    document = as_document(document)
    session = active_session()
    plan = _plan(document, params, tokenizer)
    client = session.client()  # without an endpoint: LLMNotConfigured, even for a one-sentence text
    proposals: list[Proposal] = []
    if plan.windows:
        estimate = client.estimate(SECTION_PROMPT, plan.inputs)
        if estimate.calls:
            session.announce(f"llm chunking of {document.name}", estimate)
        proposals = _ask(client, plan, session.progress)
    starts = merged_starts(plan.windows, proposals)
    pieces, split_sections = _pieces(document, plan.cuts, starts, proposals, params.max_tokens, tokenizer)
    chunks = tuple(to_chunks(document, pieces))
    return LLMExplanation(
        str(client.settings.model),
        len(plan.cuts) - 1,
        params.context_tokens,
        plan.windows,
        tuple(proposals),
        tuple(starts),
        split_sections,
        chunks,
    )


def _pieces(
    document: Document,
    cuts: Sequence[int],
    starts: dict[int, int],
    proposals: Sequence[Proposal],
    max_tokens: int,
    tokenizer: Tokenizer,
) -> tuple[list[Piece], int]:
    """One piece per section; a section over ``max_tokens`` packed by sentences (split_unit)."""
    text = document.text
    if is_blank(text):
        return [], 0
    counter = shared_counter(text, tokenizer)
    bounds = [0, *starts, len(cuts) - 1]
    pieces: list[Piece] = []
    split = 0
    for number, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        window = starts.get(a, 0)
        meta: dict[str, Any] = {"llm_section": number, "llm_window": window, "cut_by": "llm", "sentences": [a, b]}
        if proposals and proposals[window].repairs:
            meta["llm_repairs"] = list(proposals[window].repairs)
        if counter.count(cuts[a], cuts[b]) <= max_tokens:
            pieces.append(Piece(cuts[a], cuts[b], MODEL_CUT, metadata=meta))
            continue
        split += 1
        packed = pack_units(text, list(cuts[a : b + 1]), counter, PackPolicy(max_tokens, last_reason=MODEL_CUT))
        pieces.extend(replace(piece, split_unit=True, metadata={**meta, "llm_section_split": True}) for piece in packed)
    return pieces, split


def prepare_llm(
    document: Document | str, params: LLMParams, tokenizer: Tokenizer, progress: Callable[[int, int], None]
) -> None:
    """Ask the model for every window up front (answers cached), reporting progress in calls."""
    document = as_document(document)
    plan = _plan(document, params, tokenizer)
    client = active_session().client()
    if plan.windows:
        _ask(client, plan, progress)


@register(
    "llm",
    "A language model reads the numbered sentences and says where sections begin (one call per window, cached); never over max_tokens.",
    LLMParams,
    explain=explain_llm,
    prepare=prepare_llm,
    estimate=estimate_llm,
)
def llm(document: Document, params: LLMParams, tokenizer: Tokenizer) -> list[Chunk]:
    return list(explain_llm(document, params, tokenizer).chunks)


__all__ = ["LLMExplanation", "LLMParams", "MODEL_CUT", "estimate_llm", "explain_llm"]
