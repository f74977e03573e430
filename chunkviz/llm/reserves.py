"""Tokens kept free in a model's context for its answer: one reserve per kind of answer.

Each technique fits its prompt into ``context_tokens - prompt - reserve`` tokens. No call sets
a ``max_tokens`` limit on the answer: a reserve only keeps the prompt short enough for the
answer to fit, so it is sized by what the answer is.
"""

from __future__ import annotations

#: A 2-3 sentence answer: a chunk's situating context (contextual retrieval,
#: :mod:`chunkviz.llm.contextual`) or a section's summary (summary indexing,
#: :mod:`chunkviz.evaluation.summaries`).
PROSE_ANSWER_RESERVE = 256
#: The ``llm`` strategy's answer for one window: a JSON list of the numbers of the sentences that
#: begin sections (:mod:`chunkviz.llm.sections`); a long window can hold many.
SECTION_STARTS_RESERVE = 512

__all__ = ["PROSE_ANSWER_RESERVE", "SECTION_STARTS_RESERVE"]
