"""What an evaluation's LLM techniques will cost, before any call: calls and input tokens.

Each technique is counted once per distinct input, as the answer cache will serve it: a
rewritten query or a hypothetical passage once per (mode, question), a chunk's context once
per chunking, a section summary once per chunking (twins of one configuration share them).
Answer quality is counted separately (:func:`chunkviz.llm.answers.estimate_answers` needs the
retrieved chunks, so only after retrieval; :func:`answer_calls_upper_bound` before).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from chunkviz.api import chunk
from chunkviz.document.model import Document, as_document
from chunkviz.evaluation.evaluate import Configuration
from chunkviz.evaluation.retrieval import searchable
from chunkviz.evaluation.summaries import estimate_summaries
from chunkviz.llm.client import CallEstimate, LLMClient
from chunkviz.llm.contextual import DEFAULT_CONTEXT_TOKENS, estimate_contexts
from chunkviz.llm.queries import estimate_queries


@dataclass(frozen=True)
class TechniqueCost:
    """One technique's share of a run: what it is, and its estimate."""

    what: str
    estimate: CallEstimate


def technique_costs(
    document: Document | str,
    questions: Sequence[Any],
    configurations: Sequence[Configuration],
    client: LLMClient,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
) -> list[TechniqueCost]:
    """The calls each LLM technique of ``configurations`` makes on ``document`` (once per
    distinct input; cached answers counted as such)."""
    document = as_document(document)
    texts = [q.question for q in questions]
    costs: list[TechniqueCost] = []
    seen: set[tuple[Any, ...]] = set()
    for config in configurations:
        if config.query != "raw" and ("query", config.query) not in seen:
            seen.add(("query", config.query))
            costs.append(
                TechniqueCost(
                    f"{config.query} of {len(texts)} questions", estimate_queries(client, texts, config.query)
                )
            )
        chunking = (config.strategy, tuple(sorted((k, repr(v)) for k, v in config.params.items())), config.tokenizer)
        wants = [
            t
            for t in ("contextual", "llm_summaries")
            if (t == "contextual" and config.enrich == "contextual")
            or (t == "llm_summaries" and config.summaries == "llm")
        ]
        wanted = [t for t in wants if (t, chunking) not in seen]
        if not wanted:
            continue
        chunks = chunk(document, config.strategy, tokenizer=config.tokenizer, **dict(config.params))
        for technique in wanted:
            seen.add((technique, chunking))
            if technique == "contextual":
                leaves = searchable(chunks)
                costs.append(
                    TechniqueCost(
                        f"contexts of {len(leaves)} chunks ({config.strategy})",
                        estimate_contexts(client, document, leaves, context_tokens),
                    )
                )
            else:
                costs.append(
                    TechniqueCost(
                        f"summaries of the sections ({config.strategy})",
                        estimate_summaries(client, document, chunks, context_tokens),
                    )
                )
    return costs


def total(costs: Sequence[TechniqueCost]) -> CallEstimate:
    """The costs added up."""
    return CallEstimate(
        sum(c.estimate.calls for c in costs),
        sum(c.estimate.cached for c in costs),
        sum(c.estimate.input_tokens for c in costs),
    )


def answer_calls_upper_bound(configurations: int, questions: int, judge: bool) -> int:
    """Answer quality asks once per configuration and question (twice with the judge), at most."""
    return configurations * questions * (2 if judge else 1)


__all__ = ["TechniqueCost", "answer_calls_upper_bound", "technique_costs", "total"]
